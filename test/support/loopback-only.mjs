// Preloaded into a third-party tool's process by the tests (`node --import <this file> tool.js`): a
// connection to anything but loopback (127.0.0.0/8, ::1, localhost) and a DNS lookup of any other name
// are refused before they leave the process, and reported on stderr as `eventide-loopback-only: refused
// ...`, which the test looks for in the tool's output. UNIX sockets pass.
import dns from 'node:dns';
import net from 'node:net';

const REFUSED = 'eventide-loopback-only: refused';

function loopback(host) {
  if (host === undefined || host === null || host === '') return true; // Node's default: localhost
  const h = String(host).toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || /^::ffff:127\.\d+\.\d+\.\d+$/.test(h);
}

function refuse(what) {
  process.stderr.write(`${REFUSED} ${what}\n`);
  return new Error(`${REFUSED} ${what}`);
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  // connect(options[, cb]), connect(port[, host][, cb]), or Node's normalized [options, cb] array.
  let options = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (typeof options !== 'object' || options === null)
    options = { port: args[0], host: typeof args[1] === 'string' ? args[1] : undefined };
  if (options.path === undefined && !loopback(options.host)) {
    const error = refuse(`a connection to ${String(options.host)}:${String(options.port)}`);
    process.nextTick(() => this.destroy(error));
    return this;
  }
  return connect.apply(this, args);
};

const lookup = dns.lookup;
dns.lookup = function (hostname, ...rest) {
  if (loopback(hostname)) return lookup.call(this, hostname, ...rest);
  const callback = rest[rest.length - 1];
  const error = refuse(`a lookup of ${String(hostname)}`);
  if (typeof callback === 'function') process.nextTick(() => callback(error));
  return undefined;
};

const lookupPromise = dns.promises.lookup;
dns.promises.lookup = function (hostname, ...rest) {
  if (loopback(hostname)) return lookupPromise.call(this, hostname, ...rest);
  return Promise.reject(refuse(`a lookup of ${String(hostname)}`));
};
