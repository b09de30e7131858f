use nt_hdl::ingress::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// `PktInfo::unpack` reads back what `Bits::from(info)` packs (the `trace$record_info`
/// port's layout), field by field, for random records.
#[test]
fn pktinfo_unpacks_its_packed_bits() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for _ in 0..200 {
        let mut bolt = Bits::<72>::default();
        bolt.set_bits::<64>(0, rng.gen::<u64>().into());
        bolt.set_bits::<8>(64, (rng.gen::<u8>() as u64).into());
        let info = PktInfo {
            flags: (rng.gen::<u8>() as u64).into(),
            tos: (rng.gen::<u8>() as u64).into(),
            src_ip: (rng.gen::<u32>() as u64).into(),
            src_port: (rng.gen::<u16>() as u64).into(),
            dst_port: (rng.gen::<u16>() as u64).into(),
            tx_msg_id: (rng.gen::<u16>() as u64).into(),
            msg_len: (rng.gen::<u16>() as u64).into(),
            pkt_offset: (rng.gen::<u8>() as u64).into(),
            pull_grant: (rng.gen::<u16>() as u64).into(),
            grant_prio: (rng.gen::<u8>() as u64).into(),
            bolt,
            fail: rng.gen(),
            rx_msg_id: (rng.gen::<u16>() as u64).into(),
            is_new_msg: rng.gen(),
            is_new_pkt: rng.gen(),
            is_last_pkt: rng.gen(),
            ack_no: (rng.gen_range(0..512u64)).into(),
        };
        let packed: Bits<{ PktInfo::BITS }> = info.into();
        let got = PktInfo::unpack(|off, w| {
            (0..w).fold(0u64, |v, i| v | (packed.get_bit(off + i) as u64) << i)
        });
        assert_eq!(got, info);
    }
}
