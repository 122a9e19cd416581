/**
 * Where the traced bench rows export their spans: an OTLP/HTTP endpoint that takes every batch and
 * answers as a collector does, keeping only counts (GET /stats). Its own process, so its CPU is not
 * the services'. Listens on a free port, which its first line names.
 */
let batches = 0;
let bytes = 0;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    if (req.method === "GET") return Response.json({ batches, bytes });
    bytes += (await req.arrayBuffer()).byteLength;
    batches++;
    return Response.json({});
  },
});
console.log(`listening ${server.port}`);

// A module (its names are its own), though it imports nothing.
export {};
