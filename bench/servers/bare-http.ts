/**
 * Ceiling (a): the least an HTTP answer can cost on this machine, a Bun server answering a tiny
 * JSON body. Its own process, like every service. Listens on a free port, which its first line
 * names.
 */
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: () => Response.json({ ok: true }),
});
console.log(`listening ${server.port}`);
