// Loaded with `node --require` by the interop tests: a server that listens
// on a port alone listens on the loopback address, never on every interface.
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || typeof args[0] === "string") {
    const port = args[0];
    const rest = args.slice(1).filter((arg) => typeof arg === "function");
    return listen.call(this, port, "127.0.0.1", ...rest);
  }
  return listen.apply(this, args);
};
