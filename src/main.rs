//! The `tuipilot` command line. This binary offers one self-contained command;
//! the session-host commands (`start`, `send`, `wait`, `capture`, `exit`) build on the
//! same library.

use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use tuipilot::{Condition, Error, ErrorKind, Session};

#[derive(Parser)]
#[command(
    name = "tuipilot",
    version,
    about = "Drive terminal programs like a person at a keyboard and see their screen"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start a program, optionally press keys and wait, print its screen, end it.
    Once {
        /// Terminal width in columns (10-1000).
        #[arg(long, default_value_t = 80)]
        cols: u16,
        /// Terminal height in rows (2-1000).
        #[arg(long, default_value_t = 24)]
        rows: u16,
        /// Wait until this regex is on the screen before anything else.
        #[arg(long, value_name = "REGEX")]
        wait: Option<String>,
        /// Keys to press after the wait, in order (`-k 'Down Down Enter'`).
        #[arg(short = 'k', long = "key", value_name = "KEYS")]
        keys: Vec<String>,
        /// Print the screen once it has been unchanged this long (milliseconds).
        #[arg(long, value_name = "MS", default_value_t = 300)]
        stable: u64,
        /// Give up waiting after this long (milliseconds).
        #[arg(long, value_name = "MS", default_value_t = 10_000)]
        timeout_ms: u64,
        /// Print colours and attributes as escape sequences.
        #[arg(long)]
        ansi: bool,
        /// The program and its arguments.
        #[arg(required = true, last = true, value_name = "CMD")]
        command: Vec<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tuipilot: {e}");
            match e.kind() {
                ErrorKind::Timeout => ExitCode::from(1),
                ErrorKind::Exited if matches!(e, Error::ExitedWhileWaiting(_)) => ExitCode::from(1),
                _ => ExitCode::from(2),
            }
        }
    }
}

fn run(command: Command) -> tuipilot::Result<()> {
    match command {
        Command::Once {
            cols,
            rows,
            wait,
            keys,
            stable,
            timeout_ms,
            ansi,
            command,
        } => {
            // Check every key name before starting anything.
            let keys = keys
                .iter()
                .map(|spec| tuipilot::keys::parse_key_list(spec))
                .collect::<tuipilot::Result<Vec<_>>>()?;
            let mut session = Session::builder(&command[0])
                .args(&command[1..])
                .size(cols, rows)
                .timeout(Duration::from_millis(timeout_ms))
                .spawn()?;
            if let Some(pattern) = wait {
                session.wait(&Condition::text(&pattern)?)?;
            }
            for key in keys.into_iter().flatten() {
                session.press_key(key)?;
            }
            let screen = session.wait_stable(Duration::from_millis(stable))?;
            println!("{}", if ansi { screen.ansi() } else { screen.text() });
            session.exit()?;
            Ok(())
        }
    }
}
