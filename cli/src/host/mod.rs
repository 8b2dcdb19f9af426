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
//! - [`server`]: the host process: start-up, accepting and serving connections, idle
//!   timeout, watchdog, shutdown;
//! - `state`: what a host holds (its files by identity, its name's lock, its session);
//! - `requests`: what a request does: its lane, the executor's answer, its delivery;
//! - [`guards`]: who may connect (peer uid) and how long a connection may hold the host
//!   (line deadline, cancelling a hung-up client's request);
//! - [`client`]: connecting and making requests.

pub mod client;
mod control;
pub mod guards;
pub mod paths;
pub mod protocol;
mod requests;
pub mod server;
mod state;

/// Gives the heap a finished report freed back to the system. glibc keeps freed memory
/// for reuse, so a long-lived process (a host, the MCP server) that made one large report
/// would otherwise stay at its peak for as long as it lives.
pub(crate) fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointers and only returns free memory to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}
