//! Where `CI` is set, every optional program, Python module and font the tests use must be
//! installed: a test built ignored for want of one (see `build/optional.rs`) would otherwise
//! leave CI green without having run.

#[test]
#[cfg_attr(
    not(tuipilot_ci),
    ignore = "checks a CI machine: runs where CI was set when the tests were built"
)]
fn every_optional_program_module_and_font_the_tests_use_is_installed_on_ci() {
    let missing: Vec<&str> = [
        ("tmux", cfg!(have_tmux)),
        ("vim", cfg!(have_vim)),
        ("zsh", cfg!(have_zsh)),
        ("fish", cfg!(have_fish)),
        ("dialog", cfg!(have_dialog)),
        ("emacs", cfg!(have_emacs)),
        ("mc", cfg!(have_mc)),
        ("htop", cfg!(have_htop)),
        ("chafa", cfg!(have_chafa)),
        ("timg", cfg!(have_timg)),
        ("chromium", cfg!(have_chromium)),
        ("tabs (ncurses-bin)", cfg!(have_tabs)),
        ("vttest", cfg!(have_vttest)),
        ("Python's prompt_toolkit", cfg!(have_prompt_toolkit)),
        ("Python's fontTools", cfg!(have_fonttools)),
        ("fonts-noto-cjk and fonts-noto-color-emoji", cfg!(have_noto)),
        ("Noto Sans CJK Bold", cfg!(have_noto_cjk_bold)),
    ]
    .into_iter()
    .filter(|(_, installed)| !installed)
    .map(|(name, _)| name)
    .collect();
    assert!(
        missing.is_empty(),
        "CI is set and these are missing, so the tests that need them were built ignored: {}; .ci/run installs them",
        missing.join(", ")
    );
}
