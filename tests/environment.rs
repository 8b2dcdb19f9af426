//! Where `CI` is set, every optional program, Python module and font the tests use must be
//! installed: a test built ignored for want of one (`#[needs(…)]`, see `tests/testenv`)
//! would otherwise leave CI green without having run.

#[tuipilot_testenv::on_ci]
#[test]
fn every_optional_program_module_and_font_the_tests_use_is_installed_on_ci() {
    let missing = tuipilot_testenv::missing!();
    assert!(
        missing.is_empty(),
        "CI is set and these are missing, so the tests that need them were built ignored: {}; .ci/run installs them",
        missing.join(", ")
    );
}
