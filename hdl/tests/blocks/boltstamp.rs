use nt_hdl::boltstamp::*;
use nt_hdl::swif::{BOLT_ACK, BOLT_DATA, BOLT_FIRST, BOLT_INC, BOLT_LAST};
use nt_sim::kernel::Kernel;

fn frame(flags: u8, tos: u8, msg_len: u16, off: u8, credit: u16, words: usize) -> Vec<u64> {
    let mut b = vec![0u8; words * 8];
    b[15] = tos;
    b[34] = flags;
    b[39..41].copy_from_slice(&msg_len.to_be_bytes());
    b[41] = off;
    b[42..44].copy_from_slice(&credit.to_be_bytes());
    b[48] = 0xaa;
    b[49] = 0xbb;
    b[59] = 0xcc;
    b.chunks(8)
        .map(|c| u64::from_be_bytes(c.try_into().unwrap()))
        .collect()
}

/// Sends `f` from cycle 2 (one word per cycle) and returns the words out with the
/// cycle of word 6.
fn stamp(f: &[u64], rtt: u64) -> (Vec<u64>, u64) {
    let mut k = Kernel::with_clock(BoltStamp::new(true), |p| &mut p.clock).expect("kernel");
    let mut out = vec![];
    let mut c6 = 0;
    for c in 0..(f.len() as u64 + 4) {
        let u = k.uut_mut();
        u.reset.next = c == 0;
        u.rtt_pkts.next = rtt.into();
        u.source.ready.next = true;
        let i = c
            .checked_sub(2)
            .map(|i| i as usize)
            .filter(|i| *i < f.len());
        u.sink.valid.next = i.is_some();
        u.sink.data.next = i.map(|i| f[i]).unwrap_or(0).into();
        u.sink.last.next = i == Some(f.len() - 1);
        u.sink.empty.next = 0.into();
        k.settle().expect("settle");
        let u = k.uut();
        if u.source.valid.val() {
            if out.len() == 6 {
                c6 = c;
            }
            out.push(u.source.data.val().to_u64());
        }
        k.tick().expect("tick");
    }
    (out, c6)
}

fn bolt_bytes(w: &[u64]) -> Vec<u8> {
    let b: Vec<u8> = w.iter().flat_map(|x| x.to_be_bytes()).collect();
    b[48..64].to_vec()
}

/// A first-window DATA packet of a message whose credit covers it all: DATA, INC,
/// FIRST and LAST, and the time word 6 left; bytes 48-49 and 59-63 untouched.
#[test]
fn a_first_window_data_packet_gets_data_inc_first_last_and_its_tx_time() {
    let f = frame(0x01, 0, 3000, 1, 8, 136);
    let (out, c6) = stamp(&f, 8);
    assert_eq!(out.len(), 136);
    let b = bolt_bytes(&out);
    let t = (c6 - 1) as u32; // the counter restarts after the reset cycle
    assert_eq!(b[0..2], [0xaa, 0xbb]);
    assert_eq!(b[2..6], [0, 0, 0, 0]);
    assert_eq!(b[6], BOLT_DATA | BOLT_INC | BOLT_FIRST | BOLT_LAST);
    assert_eq!(b[7..11], t.to_be_bytes());
    assert_eq!(b[11], 0xcc);
    assert_eq!(out[8..], f[8..]);
    assert_eq!(out[..6], f[..6]);
}

/// Past the first window and before the last: DATA and INC only; an ACK asked to echo
/// INC (tos bit 2, DSCP bit 0) gets ACK and INC, whatever its ECN bits; a NACK gets
/// no flag.
#[test]
fn later_data_acks_and_nacks_get_their_flags() {
    let (out, _) = stamp(&frame(0x01, 0, 30_000, 10, 20, 136), 8);
    assert_eq!(bolt_bytes(&out)[6], BOLT_DATA | BOLT_INC);
    let (out, _) = stamp(&frame(0x01, 0, 30_000, 28, 30, 136), 8);
    assert_eq!(bolt_bytes(&out)[6], BOLT_DATA | BOLT_INC | BOLT_LAST);
    let (out, _) = stamp(&frame(0x02, 4, 30_000, 3, 0, 9), 8);
    assert_eq!(bolt_bytes(&out)[6], BOLT_ACK | BOLT_INC);
    let (out, _) = stamp(&frame(0x02, 0, 30_000, 3, 0, 9), 8);
    assert_eq!(bolt_bytes(&out)[6], BOLT_ACK);
    let (out, _) = stamp(&frame(0x02, 3, 30_000, 3, 0, 9), 8);
    assert_eq!(bolt_bytes(&out)[6], BOLT_ACK, "the ECN bits are not INC");
    let (out, _) = stamp(&frame(0x04, 4, 30_000, 3, 0, 9), 8);
    assert_eq!(bolt_bytes(&out)[6], 0);
}
