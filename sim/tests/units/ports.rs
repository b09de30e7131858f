//! Unit tests of `nt_sim::ports`: the hex form of recorded port values.
use nt_sim::ports::bits_to_hex;

#[test]
fn hex_is_msb_first_and_padded() {
    let mut b = vec![false; 9];
    b[0] = true;
    b[8] = true;
    assert_eq!(bits_to_hex(&b, 9), "101");
    assert_eq!(bits_to_hex(&[true, false, true, true], 4), "d");
    assert_eq!(bits_to_hex(&[], 1), "0");
}
