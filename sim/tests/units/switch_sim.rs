//! Unit tests of `nt_sim::switch_sim`: the port pacer.
use nt_sim::switch_sim::*;

#[test]
fn pacer_sends_at_its_rate_and_saves_no_burst() {
    let mut p = Pacer::new(1, 2).unwrap();
    let mut sent = 0;
    for _ in 0..100 {
        let s = p.ready();
        sent += s as u32;
        p.end_cycle(s);
    }
    assert_eq!(sent, 50);
    // Idle for a while, then at most one word at once.
    let mut p = Pacer::new(1, 4).unwrap();
    for _ in 0..20 {
        p.end_cycle(false);
    }
    assert!(p.ready());
    p.end_cycle(true);
    assert!(!p.ready());
    assert!(Pacer::new(0, 1).is_err());
    assert!(Pacer::new(3, 2).is_err());
    let mut l = Pacer::line();
    for _ in 0..5 {
        assert!(l.ready());
        l.end_cycle(true);
    }
}
