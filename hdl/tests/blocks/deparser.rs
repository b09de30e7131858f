use nt_hdl::deparser::*;
use nt_sim::kernel::Kernel;
use nt_sim::wire::{ipv4_checksum, Layout, FLAG_DATA, PROTO_NDP};

/// A 16-byte message's packet: its first word leaves one cycle after it came in, with
/// a correct IPv4 header.
#[test]
fn a_sixteen_byte_message_leaves_one_cycle_later_with_a_correct_checksum() {
    let mut k = Kernel::with_clock(Deparser::new(false), |p| &mut p.clock).expect("kernel");
    let mut out: Vec<(u64, u64, bool, u64)> = vec![];
    let words = 10u64;
    for c in 0..20u64 {
        let u = k.uut_mut();
        u.cfg.mac.next = 0x0200_0000_0001u64.into();
        u.cfg.ip.next = 0x0a00_0001u64.into();
        u.cfg.switch_mac.next = 0x0200_0000_00ffu64.into();
        u.cfg.protocol.next = (PROTO_NDP as u64).into();
        u.source.ready.next = true;
        let i = c.checked_sub(2);
        u.sink.valid.next = i.is_some_and(|i| i < words);
        u.sink.data.next = (0x1111_0000 + c).into();
        u.sink.last.next = i == Some(words - 1);
        u.sink.remote_ip.next = 0x0a00_0002u64.into();
        u.sink.msg_len.next = 16u64.into();
        u.sink.flags.next = (FLAG_DATA as u64).into();
        k.settle().expect("settle");
        let u = k.uut();
        if u.source.valid.val() {
            out.push((
                c,
                u.source.data.val().to_u64(),
                u.source.last.val(),
                u.source.empty.val().to_u64(),
            ));
        }
        k.tick().expect("tick");
    }
    assert_eq!(out.len(), 10);
    assert_eq!(out[0].0, 3, "first word in at 2, out at 3");
    let bytes: Vec<u8> = out.iter().flat_map(|w| w.1.to_be_bytes()).collect();
    assert_eq!(ipv4_checksum(&bytes[14..34]), 0);
    assert_eq!(u16::from_be_bytes([bytes[16], bytes[17]]), 66);
    assert_eq!((out[9].2, out[9].3), (true, 0));
    let _ = Layout::Ndp;
}
