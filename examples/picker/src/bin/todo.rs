//! `todo`: a ratatui todo list, the shape of app whose frames arrive torn. Type a task and
//! press Enter to add it (newest first, so every row moves); Enter on an empty line marks
//! the selected task done (struck through); Up/Down select (bold white on blue); `q` on an
//! empty line quits (0), Ctrl-C exits 130. The status bar at the bottom counts the tasks.
//!
//! ratatui writes a frame's changes through stdout's 1 KiB buffer, so a frame that moves
//! every row (each character in its own colour) reaches the terminal in pieces, the status
//! bar last. `--sync` wraps each frame
//! in synchronized output (mode 2026) instead.

use std::io::{self, Write};

use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, List, ListItem, ListState, Paragraph};

struct App {
    /// Newest first, with whether each is done.
    tasks: Vec<(String, bool)>,
    input: String,
    selected: ListState,
}

fn draw(frame: &mut ratatui::Frame, app: &mut App) {
    let [input, tasks, status] =
        Layout::vertical([Constraint::Length(3), Constraint::Min(3), Constraint::Length(1)])
            .areas(frame.area());
    frame.render_widget(
        Paragraph::new(format!("> {}", app.input))
            .block(Block::new().borders(Borders::ALL).title(" New task ")),
        input,
    );
    let items: Vec<ListItem> = app
        .tasks
        .iter()
        .enumerate()
        .map(|(i, (task, done))| {
            // Alternate row colours: a task added on top repaints every row below it.
            let mut style = Style::new().bg(if i % 2 == 0 {
                Color::Indexed(236)
            } else {
                Color::Indexed(238)
            });
            if *done {
                style = style.add_modifier(Modifier::CROSSED_OUT);
            }
            // Each character in its own colour (a gradient): a frame of moved rows is many
            // kilobytes, written in many pieces.
            let text = format!("{:>3}. {task:<40}", app.tasks.len() - i);
            let spans: Vec<Span> = text
                .chars()
                .enumerate()
                .map(|(col, c)| {
                    Span::styled(
                        c.to_string(),
                        Style::new().fg(Color::Indexed(17 + ((i * 7 + col) % 200) as u8)),
                    )
                })
                .collect();
            ListItem::new(Line::from(spans)).style(style)
        })
        .collect();
    let list = List::new(items)
        .block(Block::new().borders(Borders::ALL).title(" Tasks "))
        .highlight_style(
            Style::new()
                .fg(Color::White)
                .bg(Color::Blue)
                .add_modifier(Modifier::BOLD),
        );
    frame.render_stateful_widget(list, tasks, &mut app.selected);
    let done = app.tasks.iter().filter(|(_, d)| *d).count();
    frame.render_widget(
        Paragraph::new(format!("{} tasks, {done} done", app.tasks.len()))
            .style(Style::new().add_modifier(Modifier::REVERSED)),
        status,
    );
}

fn run(terminal: &mut ratatui::DefaultTerminal, sync: bool) -> io::Result<i32> {
    let mut app = App {
        tasks: Vec::new(),
        input: String::new(),
        selected: ListState::default(),
    };
    loop {
        if sync {
            ratatui::crossterm::execute!(io::stdout(), BeginSynchronizedUpdate)?;
        }
        terminal.draw(|frame| draw(frame, &mut app))?;
        if sync {
            ratatui::crossterm::execute!(io::stdout(), EndSynchronizedUpdate)?;
            io::stdout().flush()?;
        }
        let Event::Key(key) = event::read()? else {
            continue;
        };
        if key.kind != KeyEventKind::Press {
            continue;
        }
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            return Ok(130);
        }
        match key.code {
            KeyCode::Char('q') if app.input.is_empty() => return Ok(0),
            KeyCode::Char(c) => app.input.push(c),
            KeyCode::Backspace => {
                app.input.pop();
            }
            KeyCode::Enter if app.input.is_empty() => {
                if let Some(task) = app.selected.selected().and_then(|i| app.tasks.get_mut(i)) {
                    task.1 = !task.1;
                }
            }
            KeyCode::Enter => {
                app.tasks.insert(0, (std::mem::take(&mut app.input), false));
                app.selected.select(Some(0));
            }
            KeyCode::Down => app.selected.select_next(),
            KeyCode::Up => app.selected.select_previous(),
            _ => {}
        }
    }
}

fn main() -> io::Result<()> {
    let sync = std::env::args().any(|a| a == "--sync");
    let mut terminal = ratatui::init();
    let code = run(&mut terminal, sync);
    ratatui::restore();
    std::process::exit(code?)
}
