// Preloaded (NODE_OPTIONS) by `scripts/run-tests.mjs --node PATH` when the native addons in
// node_modules were built for another Node.js than PATH: process.dlopen() then loads the build
// made for this Node (scripts/native-addons.mjs) instead of the installed one. The table comes in
// EVENTIDE_NATIVE_ADDONS: {"modules": "<NODE_MODULE_VERSION>", "files": {"<installed>": "<build>"}}.
// A process of another Node (a child that runs another binary) loads what is installed.
const spec = JSON.parse(process.env.EVENTIDE_NATIVE_ADDONS ?? 'null');
if (spec !== null && spec.modules === process.versions.modules) {
  const files = new Map(Object.entries(spec.files));
  const dlopen = process.dlopen.bind(process);
  process.dlopen = (module, filename, ...flags) => dlopen(module, files.get(filename) ?? filename, ...flags);
}
