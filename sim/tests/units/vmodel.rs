//! Unit tests of `nt_sim::vmodel`: the port buffer layout, the C++ wrapper and hex words.
use nt_sim::ports::{Dir, Port};
use nt_sim::vmodel::*;

fn p(name: &str, width: usize, dir: Dir) -> Port {
    Port {
        name: name.into(),
        width,
        dir,
    }
}

#[test]
fn layout_packs_each_direction_by_32_bit_words() {
    let ports = vec![
        p("a", 1, Dir::In),
        p("b$x", 48, Dir::In),
        p("c", 70, Dir::In),
        p("o", 64, Dir::Out),
        p("q", 3, Dir::Out),
    ];
    let (ins, n) = layout(&ports, Dir::In);
    assert_eq!(n, 1 + 2 + 3);
    assert_eq!(ins[1].1.off, 1);
    assert_eq!(ins[2].1.off, 3);
    let (outs, m) = layout(&ports, Dir::Out);
    assert_eq!((outs[1].1.off, m), (2, 3));
    let cpp = wrapper_cpp("m", &ports);
    assert!(cpp.contains("top.b__024x = (uint64_t)in[1] | ((uint64_t)in[2] << 32);"));
    assert!(cpp.contains("top.c[2] = in[5];"));
    assert!(cpp.contains("out[2] = (uint32_t)top.q;"));
    assert!(cpp.contains("a:1:in b$x:48:in c:70:in o:64:out q:3:out"));
}

#[test]
fn hex_round_trips_through_words() {
    let mut w = [0u32; 3];
    parse_hex("3fedcba9876543210", &mut w).unwrap();
    assert_eq!(w, [0x7654_3210, 0xfedc_ba98, 0x3]);
    assert_eq!(to_hex(&w, 66), "3fedcba9876543210");
    assert_eq!(to_hex(&[5], 3), "5");
    assert!(parse_hex("1x", &mut w).is_none());
}
