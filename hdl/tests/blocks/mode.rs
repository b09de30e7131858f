//! The mode table: one row per [`SwitchMode`] in enum order, names unique, and parsing,
//! printing and serde agreeing on the names.
use nt_hdl::mode::{SwitchMode, MODES};

#[test]
fn the_table_has_one_row_per_mode_in_order() {
    assert_eq!(MODES.len(), SwitchMode::ALL.len());
    for (i, (row, m)) in MODES.iter().zip(SwitchMode::ALL).enumerate() {
        assert_eq!(row.mode, m, "row {i}");
        assert_eq!(m as usize, i);
        assert_eq!(m.info(), row);
        assert_eq!(SwitchMode::parse(row.name), Ok(m));
        assert_eq!(m.to_string(), row.name);
        for other in &MODES[i + 1..] {
            assert_ne!(row.name, other.name);
        }
    }
    assert_eq!(SwitchMode::names(), "droptail, trim, tofino-trim, bolt");
    assert_eq!(SwitchMode::default(), SwitchMode::DropTail);
}

#[test]
fn an_unknown_mode_is_an_error_naming_the_known_ones() {
    for bad in ["", "red", "Trim", "tofino_trim", " trim"] {
        let e = SwitchMode::parse(bad).expect_err(bad);
        assert_eq!(
            e,
            format!("unknown mode {bad:?}; known: droptail, trim, tofino-trim, bolt")
        );
    }
}
