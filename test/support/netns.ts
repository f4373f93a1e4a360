/**
 * A private network of Linux network namespaces for deployment tests: one
 * namespace holding a bridge, and one namespace per node, each with a veth
 * into the bridge and an address of a /24 of its own (10.77.N.0/24). Nothing
 * here touches the host's own network: every address and every listener
 * lives in a namespace the test created, and `destroy()` kills every
 * process in them and deletes them (which deletes the veths).
 *
 * Needs root and `ip` (iproute2); {@link netnsUnavailable} says why not.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';

/** Why namespaces cannot be used here (not root, no `ip`, creation refused), or `null`. */
export function netnsUnavailable(): string | null {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  const probe = `evprobe${process.pid % 100000}`;
  try {
    execFileSync('ip', ['netns', 'add', probe], { stdio: 'pipe', timeout: 5000 });
    execFileSync('ip', ['netns', 'del', probe], { stdio: 'pipe', timeout: 5000 });
    return null;
  } catch (e) {
    return `cannot create a network namespace: ${(e as Error).message.split('\n')[0]}`;
  }
}

/**
 * Removes the namespaces of earlier runs whose test process is gone (a run
 * killed by a timeout cannot clean up after itself): their processes are
 * killed, then the namespaces deleted.
 */
function removeStale(): void {
  let list: string;
  try {
    list = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8', timeout: 5000 });
  } catch {
    return;
  }
  for (const line of list.split('\n')) {
    const m = /^(ev(\d+)[a-z0-9]+)\b/.exec(line);
    if (m === null || m[1] === undefined || Number(m[2]) === process.pid % 100000) continue;
    let owner: boolean;
    try {
      owner = execFileSync('ps', ['-eo', 'pid='], { encoding: 'utf8' })
        .split(/\s+/)
        .some((p) => p !== '' && Number(p) % 100000 === Number(m[2]) && Number(p) !== process.pid);
    } catch {
      owner = false;
    }
    if (owner) continue;
    try {
      for (const pid of execFileSync('ip', ['netns', 'pids', m[1]], { encoding: 'utf8' }).split(/\s+/).filter(Boolean))
        process.kill(Number(pid), 'SIGKILL');
      ip(['netns', 'del', m[1]]);
    } catch {
      // gone meanwhile
    }
  }
}

function ip(args: string[]): void {
  execFileSync('ip', args, { stdio: 'pipe', timeout: 10_000 });
}

/** The private network: nodes by name, each with one address. */
export class NetLab {
  readonly #id: string;
  readonly #subnet: string;
  readonly #nodes = new Map<string, { ns: string; addr: string }>();
  readonly #children = new Set<ChildProcess>();
  #destroyed = false;

  private constructor(id: string, subnet: string) {
    this.#id = id;
    this.#subnet = subnet;
  }

  /**
   * Creates the bridge namespace and one namespace per node (addresses
   * `.10`, `.11`, ... in node order). Anything half-made is removed when
   * creation fails.
   */
  static create(nodes: readonly string[]): NetLab {
    removeStale();
    const id = String(process.pid % 100000);
    const subnet = `10.77.${(process.pid % 200) + 20}`;
    const lab = new NetLab(id, subnet);
    try {
      const lan = `ev${id}lan`;
      ip(['netns', 'add', lan]);
      ip(['-n', lan, 'link', 'add', 'br0', 'type', 'bridge']);
      ip(['-n', lan, 'link', 'set', 'br0', 'up']);
      nodes.forEach((name, i) => {
        const ns = `ev${id}${name}`;
        const addr = `${subnet}.${10 + i}`;
        lab.#nodes.set(name, { ns, addr });
        ip(['netns', 'add', ns]);
        const outer = `v${id}${i}`;
        ip(['link', 'add', outer, 'type', 'veth', 'peer', 'name', `p${id}${i}`]);
        ip(['link', 'set', outer, 'netns', lan]);
        ip(['link', 'set', `p${id}${i}`, 'netns', ns]);
        ip(['-n', lan, 'link', 'set', outer, 'master', 'br0']);
        ip(['-n', lan, 'link', 'set', outer, 'up']);
        ip(['-n', ns, 'link', 'set', `p${id}${i}`, 'name', 'eth0']);
        ip(['-n', ns, 'addr', 'add', `${addr}/24`, 'dev', 'eth0']);
        ip(['-n', ns, 'link', 'set', 'eth0', 'up']);
        ip(['-n', ns, 'link', 'set', 'lo', 'up']);
      });
    } catch (e) {
      lab.destroy();
      throw e;
    }
    return lab;
  }

  /** The node's address. */
  addr(node: string): string {
    return this.#node(node).addr;
  }

  /** The namespace of a node. */
  ns(node: string): string {
    return this.#node(node).ns;
  }

  #node(node: string): { ns: string; addr: string } {
    const n = this.#nodes.get(node);
    if (n === undefined) throw new Error(`no node ${node}`);
    return n;
  }

  /** Starts `cmd args` inside the node's namespace (remembered: destroy() kills it). */
  spawn(node: string, cmd: string, args: readonly string[], options: { cwd?: string } = {}): ChildProcess {
    const child = spawn('ip', ['netns', 'exec', this.ns(node), cmd, ...args], {
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.#children.add(child);
    child.once('exit', () => this.#children.delete(child));
    return child;
  }

  /** Kills every process of a node's namespace (SIGKILL): the host "dies". */
  killNode(node: string): void {
    const ns = this.ns(node);
    let pids: string[];
    try {
      pids = execFileSync('ip', ['netns', 'pids', ns], { encoding: 'utf8', timeout: 5000 })
        .split(/\s+/)
        .filter(Boolean);
    } catch {
      return;
    }
    for (const pid of pids) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  /** Kills everything in every namespace and deletes them (idempotent). */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const c of this.#children) c.kill('SIGKILL');
    for (const name of this.#nodes.keys()) this.killNode(name);
    for (const { ns } of this.#nodes.values()) {
      try {
        ip(['netns', 'del', ns]);
      } catch {
        // not made
      }
    }
    try {
      ip(['netns', 'del', `ev${this.#id}lan`]);
    } catch {
      // not made
    }
  }

  /** The /24 prefix (`10.77.N`). */
  get subnet(): string {
    return this.#subnet;
  }
}
