//! The `tuipilot` binary: the command line ([`commands`]), the session host behind it
//! ([`host`]), the MCP server ([`mcp`]) and the watchdog both servers fork ([`watchdog`]).
//!
//! Everything here translates: arguments, socket lines and MCP tool calls become the
//! library's operations, and its typed replies and errors become text, JSON and exit
//! codes. The engine itself is the `tuipilot` library.

mod allow;
mod commands;
mod error;
mod host;
mod mcp;
mod suite;
mod title;
mod watch;
mod watchdog;

fn main() -> std::process::ExitCode {
    commands::main()
}
