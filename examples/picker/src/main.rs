//! `picker`: pick a fruit. A small ratatui app with what end-to-end tests must cope with:
//! a selection drawn in a style, a clock that changes every second, a filter popup with
//! text input, resizing, and exit codes (0 picked, 1 cancelled, 130 Ctrl-C).

use std::io;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, List, ListItem, ListState, Paragraph};

const FRUITS: [&str; 6] = ["Apple", "Banana", "Cherry", "Durian", "Elderberry", "Fig"];

/// The app's state.
struct App {
    selected: ListState,
    filter: String,
    /// The filter popup is open.
    editing: bool,
}

impl App {
    fn visible(&self) -> Vec<&'static str> {
        let needle = self.filter.to_lowercase();
        FRUITS
            .iter()
            .copied()
            .filter(|f| f.to_lowercase().contains(&needle))
            .collect()
    }
}

/// The wall clock as HH:MM:SS (UTC), the part of the screen no golden can hold.
fn clock() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format!("{:02}:{:02}:{:02}", secs / 3600 % 24, secs / 60 % 60, secs % 60)
}

fn draw(frame: &mut ratatui::Frame, app: &mut App) {
    let [title, body, help] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(3), Constraint::Length(1)])
            .areas(frame.area());
    frame.render_widget(
        Paragraph::new(Line::from(format!(
            "Fruit picker{:>width$}",
            clock(),
            width = usize::from(title.width).saturating_sub(12)
        )))
        .style(Style::new().fg(Color::Black).bg(Color::Cyan)),
        title,
    );
    let items: Vec<ListItem> = app.visible().into_iter().map(ListItem::new).collect();
    let list = List::new(items)
        .block(Block::new().borders(Borders::ALL).title(" Fruit "))
        .highlight_style(
            Style::new()
                .fg(Color::Yellow)
                .add_modifier(Modifier::REVERSED | Modifier::BOLD),
        )
        .highlight_symbol("> ");
    frame.render_stateful_widget(list, body, &mut app.selected);
    frame.render_widget(
        Paragraph::new("↑/↓ move  Enter pick  / filter  q quit")
            .style(Style::new().add_modifier(Modifier::DIM)),
        help,
    );
    if app.editing {
        let filter = &app.filter;
        let area = Rect {
            x: body.x + 4,
            y: body.y + 1,
            width: body.width.saturating_sub(8).min(30),
            height: 3,
        };
        frame.render_widget(Clear, area);
        frame.render_widget(
            Paragraph::new(format!("{filter}_")).block(Block::new().borders(Borders::ALL).title(" Filter ")),
            area,
        );
    }
}

/// Runs the app; the exit code says how it ended.
fn run(terminal: &mut ratatui::DefaultTerminal) -> io::Result<i32> {
    let mut app = App {
        selected: ListState::default().with_selected(Some(0)),
        filter: String::new(),
        editing: false,
    };
    loop {
        terminal.draw(|frame| draw(frame, &mut app))?;
        // Redraw at least every second: the clock.
        if !event::poll(Duration::from_millis(250))? {
            continue;
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
        let count = app.visible().len();
        if app.editing {
            match key.code {
                KeyCode::Char(c) => app.filter.push(c),
                KeyCode::Backspace => {
                    app.filter.pop();
                }
                KeyCode::Enter => app.editing = false,
                KeyCode::Esc => {
                    app.filter.clear();
                    app.editing = false;
                }
                _ => {}
            }
            app.selected.select(Some(0));
            continue;
        }
        match key.code {
            KeyCode::Down if count > 0 => app
                .selected
                .select(Some((app.selected.selected().unwrap_or(0) + 1) % count)),
            KeyCode::Up if count > 0 => app
                .selected
                .select(Some((app.selected.selected().unwrap_or(0) + count - 1) % count)),
            KeyCode::Char('/') => app.editing = true,
            KeyCode::Enter => {
                let visible = app.visible();
                if let Some(fruit) = app.selected.selected().and_then(|i| visible.get(i)) {
                    ratatui::restore();
                    println!("picked {fruit}");
                    return Ok(0);
                }
            }
            KeyCode::Char('q') | KeyCode::Esc => return Ok(1),
            _ => {}
        }
    }
}

fn main() -> io::Result<()> {
    let mut terminal = ratatui::init();
    let code = run(&mut terminal);
    ratatui::restore();
    std::process::exit(code?)
}
