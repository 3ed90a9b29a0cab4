//! A scripted HTTP/1.1 server on 127.0.0.1 and the provider fixtures, so
//! the model-provider tests run against real sockets without the network.
//!
//! [`LoopbackServer::start`] takes a script of [`Reply`]s; each request
//! it reads takes the next one, and the [`Recorded`] requests are there
//! to assert on. Replies cover complete JSON or text answers, SSE streams
//! cut into writes at awkward places ([`Split`], [`awkward_cuts`],
//! [`utf8_cut`]), a connection dropped mid-stream and a request that is
//! never answered. Connections are kept alive between requests unless the
//! client asks to close. Everything is bounded: a 64 KiB head, a 16 MiB
//! body and 30 s per socket operation.
//!
//! [`fixture`], [`fixture_json`] and [`sse_events`] load the response
//! fixtures in `tests/fixtures/providers/` (see the README there).

mod connection;
mod fixtures;
mod reply;
mod request;
mod server;

pub use fixtures::{fixture, fixture_json, fixture_path, sse_data, sse_events, sse_names};
pub use reply::{awkward_cuts, utf8_cut, Reply, Split};
pub use request::{Recorded, MAX_BODY, MAX_HEAD};
pub use server::LoopbackServer;
