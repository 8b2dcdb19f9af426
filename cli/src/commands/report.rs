//! `tuipilot report`: a session's or a recording's report (see `tuipilot::report`) — the
//! Markdown on stdout, or `report.html`/`.md`/`.json` written where `-o` says. A live
//! session's report is made by its host (only it holds the operation log and the output);
//! a recording's here, its steps from its markers.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use tuipilot::record::CastFile;
use tuipilot::report::{ReportFormat, RunReport};

use super::client::session_paths;
use crate::error::Failure;
use crate::host::client::Client;
use crate::host::protocol::Request;

// `report`'s arguments.
#[derive(clap::Args)]
pub(super) struct ReportArgs {
    /// A recording (asciicast .cast) to report on instead of the live session.
    #[arg(value_name = "REC.cast")]
    recording: Option<PathBuf>,
    /// Write here: FILE.html, FILE.md or FILE.json for one form, or a folder for all
    /// three (default: print the Markdown).
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    output: Option<PathBuf>,
}

pub(super) fn report(name: &str, args: ReportArgs) -> Result<(), Failure> {
    let output = args.output.map(|path| std::path::absolute(&path).unwrap_or(path));
    if let Some(path) = &args.recording {
        // Read from the file as the report needs it, never held whole.
        let file = CastFile::open(path)?;
        let mut report = RunReport::of_file(file, path.display().to_string());
        return match &output {
            Some(out) => written(&report.write_to(out)?),
            None => {
                say!("{}", report.text(ReportFormat::Markdown)?.trim_end());
                Ok(())
            }
        };
    }
    let paths = session_paths(name)?;
    let request = Request::Report { path: output };
    let reply = Client::request_once(&paths, &request, Duration::from_secs(60))?;
    match (reply.get("markdown"), reply.get("written")) {
        (Some(Value::String(markdown)), _) => {
            say!("{}", markdown.trim_end());
            Ok(())
        }
        (_, Some(Value::Array(files))) => {
            let files: Vec<PathBuf> = files
                .iter()
                .filter_map(Value::as_str)
                .map(PathBuf::from)
                .collect();
            written(&files)
        }
        _ => Err(Failure::internal(
            "unreadable reply from the host: no report in it",
        )),
    }
}

fn written(files: &[PathBuf]) -> Result<(), Failure> {
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    say!("wrote {}", names.join(", "));
    Ok(())
}
