//! The background session host behind the command line.
//!
//! Each session lives in its own host process (the `tuipilot` binary re-executed with a
//! hidden subcommand), which owns the [`Session`](tuipilot::Session) and serves requests on
//! a Unix socket in a private runtime directory, one JSON object per line. The CLI is a
//! client: each call connects, says `hello`, sends one request and prints the answer.
//!
//! - [`paths`]: the runtime directory, its permission checks, socket and log paths;
//! - [`protocol`]: the transport around the library's operations (ids, handshake,
//!   bounded lines);
//! - [`server`]: the host process, its peer-uid check, idle timeout and watchdog;
//! - [`client`]: connecting and making requests.

pub mod client;
pub mod paths;
pub mod protocol;
pub mod server;
