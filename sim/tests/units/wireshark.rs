//! The Wireshark dissector `tools/wireshark/ntransport.lua`, run by tshark on frames built
//! with `nt_sim::wire` (the layout the NIC and switch use): every kind of packet of NDP,
//! Homa/Homa-Tr and Bolt, a trimmed header, a Bolt SRC and a truncated one. Each decoded
//! field must equal the field the frame was built with.
use nt_sim::pcap::{write_pcap, Packet};
use nt_sim::wire::{
    bolt_src_of, Frame, Layout, Transport, FLAG_ACK, FLAG_CHOP, FLAG_DATA, FLAG_NACK,
    FLAG_PULL_GRANT, PROTO_HOMA, PROTO_NDP,
};
use std::path::PathBuf;
use std::process::Command;

fn dissector() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tools/wireshark/ntransport.lua")
}

fn frame(layout: Layout, t: Transport, payload: usize, tos: u8) -> (Frame, Vec<u8>) {
    let f = Frame {
        dst_mac: 0x02_00_00_00_00_0b,
        src_mac: 0x02_00_00_00_00_0a,
        tos,
        ip_id: 7,
        ttl: 64,
        protocol: if layout == Layout::Homa {
            PROTO_HOMA
        } else {
            PROTO_NDP
        },
        src_ip: 0x0a00_0001,
        dst_ip: 0x0a00_0002,
        t,
        payload: (0..payload).map(|k| k as u8).collect(),
    };
    let b = f.encode(layout);
    (f, b)
}

/// The fields the test reads, in tshark's `-T fields` order.
const FIELDS: [&str; 17] = [
    "ntransport.flags",
    "ntransport.src_port",
    "ntransport.dst_port",
    "ntransport.msg_len",
    "ntransport.pkt_offset",
    "ntransport.pull_offset",
    "ntransport.grant_offset",
    "ntransport.grant_prio",
    "ntransport.tx_msg_id",
    "ntransport.buf_ptr",
    "ntransport.buf_size_class",
    "ntransport.bolt.q_size",
    "ntransport.bolt.link_rate",
    "ntransport.bolt.flags",
    "ntransport.bolt.t_data_tx",
    "ntransport.payload_len",
    "ntransport.flags.chop",
];

/// What the dissector must print for `f` (tshark's `-T fields` text: decimal, flags in
/// hex, the boolean CHOP bit as 1 or 0).
fn expected(f: &Frame, layout: Layout, payload: usize) -> Vec<String> {
    let t = &f.t;
    let b = &t.bolt;
    let homa = layout == Layout::Homa;
    let opt = |on: bool, v: u64| if on { v.to_string() } else { String::new() };
    vec![
        format!("0x{:02x}", t.flags),
        t.src_port.to_string(),
        t.dst_port.to_string(),
        t.msg_len.to_string(),
        t.pkt_offset.to_string(),
        opt(!homa, t.pull_grant as u64),
        opt(homa, t.pull_grant as u64),
        opt(homa, t.grant_prio as u64),
        t.tx_msg_id.to_string(),
        t.buf_ptr.to_string(),
        t.buf_class.to_string(),
        (u32::from_be_bytes([0, b[0], b[1], b[2]])).to_string(),
        b[3].to_string(),
        format!("0x{:02x}", b[4]),
        u32::from_be_bytes([b[5], b[6], b[7], b[8]]).to_string(),
        payload.to_string(),
        u8::from(t.flags & FLAG_CHOP != 0).to_string(),
    ]
}

fn tshark() -> PathBuf {
    nt_sim::verilator::which("tshark").expect("tshark is not installed: run scripts/setup.sh")
}

#[test]
fn the_dissector_decodes_every_field_of_every_packet_kind() {
    let ndp = |flags, offset, payload| {
        let t = Transport {
            flags,
            src_port: 1000,
            dst_port: 80,
            msg_len: 3000,
            pkt_offset: offset,
            pull_grant: 7,
            tx_msg_id: 513,
            buf_ptr: 9,
            buf_class: 3,
            ..Default::default()
        };
        (Layout::Ndp, t, payload, 0)
    };
    let homa = |flags, prio, payload, tos| {
        let t = Transport {
            flags,
            src_port: 1001,
            dst_port: 81,
            msg_len: 38 * 1024,
            pkt_offset: 37,
            pull_grant: 40_000,
            grant_prio: prio,
            tx_msg_id: 65_535,
            buf_ptr: 300,
            buf_class: 2,
            ..Default::default()
        };
        (Layout::Homa, t, payload, tos)
    };
    let mut bolt = ndp(FLAG_DATA, 0, 100);
    // q_size 0x010203, link rate 100, DATA FIRST INC, t_data_tx 123456
    bolt.1.bolt = [1, 2, 3, 100, 0x8c, 0, 1, 0xe2, 0x40];
    let cases = vec![
        ("NDP DATA", ndp(FLAG_DATA, 2, 1024)),
        ("NDP ACK", ndp(FLAG_ACK, 3, 1)),
        ("NDP NACK", ndp(FLAG_NACK, 1, 1)),
        ("NDP PULL", ndp(FLAG_PULL_GRANT, 4, 1)),
        ("NDP trimmed", ndp(FLAG_DATA | FLAG_CHOP, 2, 0)),
        ("Homa DATA", homa(FLAG_DATA, 0, 1024, 6 << 2)),
        ("Homa GRANT", homa(FLAG_PULL_GRANT, 5, 1, 0)),
        ("Homa-Tr trimmed", homa(FLAG_DATA | FLAG_CHOP, 0, 0, 0)),
        ("Bolt DATA", bolt),
    ];
    let mut built: Vec<(&str, Frame, Layout, usize, Vec<u8>)> = cases
        .into_iter()
        .map(|(name, (layout, t, payload, tos))| {
            let (f, b) = frame(layout, t, payload, tos);
            (name, f, layout, payload, b)
        })
        .collect();
    // the SRC a Bolt switch sends back for the Bolt DATA frame
    let src = bolt_src_of(&built[8].4, 0x0a_bcde, 200).expect("an SRC for Bolt DATA");
    let sf = Frame::decode(&src, Layout::Ndp).unwrap();
    built.push(("Bolt SRC", sf, Layout::Ndp, 0, src));

    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wireshark");
    std::fs::create_dir_all(&d).unwrap();
    let cap = d.join("kinds.pcap");
    let mut packets: Vec<Packet> = built
        .iter()
        .enumerate()
        .map(|(k, x)| Packet {
            cycle: 100 * k as u64,
            bytes: x.4.clone(),
        })
        .collect();
    // and one cut inside its transport header: 10 of its 30 bytes
    let mut cut = built[0].4[..44].to_vec();
    cut[16..18].copy_from_slice(&30u16.to_be_bytes());
    packets.push(Packet {
        cycle: 5000,
        bytes: cut,
    });
    write_pcap(&cap, &packets).unwrap();

    let script = format!("lua_script:{}", dissector().display());
    let mut args = vec![
        "-n".to_string(),
        "-X".into(),
        script.clone(),
        "-r".into(),
        cap.display().to_string(),
        "-T".into(),
        "fields".into(),
        "-E".into(),
        "separator=;".into(),
    ];
    for f in FIELDS {
        args.extend(["-e".to_string(), f.to_string()]);
    }
    let o = Command::new(tshark()).args(&args).output().expect("tshark");
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "tshark failed: {err}");
    assert!(!err.contains("Lua"), "the dissector failed to load: {err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), built.len() + 1, "{out}");
    for ((name, f, layout, payload, _), line) in built.iter().zip(&lines) {
        let mut got: Vec<String> = line.split(';').map(str::to_string).collect();
        // tshark 4.0 prints a boolean as 1 or 0, later versions as True or False
        if let Some(chop) = got.last_mut() {
            *chop = chop.replace("True", "1").replace("False", "0");
        }
        assert_eq!(got, expected(f, *layout, *payload), "{name}: {line}");
    }

    // The summary line names the kind; the cut frame is flagged malformed.
    let o = Command::new(tshark())
        .args(["-n", "-X", &script, "-r"])
        .arg(&cap)
        .output()
        .expect("tshark");
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    for (k, want) in [
        (0, "nT-NDP"),
        (0, "DATA 1000 -> 80"),
        (1, "ACK"),
        (2, "NACK"),
        (3, "PULL"),
        (4, "DATA+CHOP"),
        (5, "nT-Homa"),
        (6, "GRANT"),
        (6, "prio=5"),
        (7, "DATA+CHOP"),
        (9, "Bolt SRC"),
        (10, "truncated"),
    ] {
        assert!(
            lines[k].contains(want),
            "frame {}: {want:?} in {}",
            k + 1,
            lines[k]
        );
    }
    let o = Command::new(tshark())
        .args(["-n", "-X", &script, "-V", "-r"])
        .arg(&cap)
        .args(["-Y", "frame.number == 11"])
        .output()
        .expect("tshark");
    let v = String::from_utf8_lossy(&o.stdout);
    assert!(
        v.contains("Shorter than the 30-byte transport header"),
        "{v}"
    );
}

/// A pcapng capture as `ntsim run` writes its links': tshark (and so Wireshark) reads its
/// times as the simulated ones at 3.2 GHz (a cycle is 0.3125 ns), each frame's cycle in
/// its comment, and the dissector decodes it as it does a classic pcap.
#[test]
fn pcapng_captures_are_in_real_time_in_tshark() {
    let (_, bytes) = frame(
        Layout::Ndp,
        Transport {
            flags: FLAG_DATA,
            src_port: 1000,
            dst_port: 80,
            msg_len: 3000,
            ..Default::default()
        },
        8,
        0,
    );
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wireshark");
    std::fs::create_dir_all(&d).unwrap();
    let cap = d.join("real_time.pcapng");
    let cycles = [0u64, 1, 3_200, 3_200_000_007];
    let packets: Vec<Packet> = cycles
        .iter()
        .map(|&cycle| Packet {
            cycle,
            bytes: bytes.clone(),
        })
        .collect();
    write_pcap(&cap, &packets).unwrap();
    let script = format!("lua_script:{}", dissector().display());
    let o = Command::new(tshark())
        .args(["-n", "-X", &script, "-r"])
        .arg(&cap)
        .args([
            "-T",
            "fields",
            "-E",
            "separator=;",
            "-e",
            "frame.time_epoch",
        ])
        .args(["-e", "frame.comment", "-e", "ntransport.dst_port"])
        .output()
        .expect("tshark");
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "tshark failed: {err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), cycles.len(), "{out}");
    for (c, line) in cycles.iter().zip(&lines) {
        let f: Vec<&str> = line.split(';').collect();
        // tshark prints nanoseconds: a cycle's 0.3125 ns to the nearest.
        let secs: f64 = f[0].parse().unwrap_or_else(|_| panic!("{line}"));
        let want = *c as f64 / 3.2e9;
        assert!((secs - want).abs() < 1e-9, "cycle {c}: {secs} s ({line})");
        assert_eq!(f[1], format!("cycle {c}"), "{line}");
        assert_eq!(f[2], "80", "{line}");
    }
}
