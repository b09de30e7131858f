//! Every block that is emitted as Verilog, with the module name it gets.
use crate::arbiter::Arbiter;
use crate::deparser::Deparser;
use crate::emit::{emit_verilog, emit_verilog_grouped, EmitError};
use crate::nic::{NicBolt, NicHoma, NicNdp, NicNdp128, NicNdpFpga};
use crate::packetization::{Packetization128, Packetization16};
use crate::parser::Parser;
use crate::pktgen::PacketGen16;
use crate::prisched::{PrioSched128, PrioSched16};
use crate::reassembly::{Reassembly128, Reassembly16, ReassemblyConfig};
use crate::sadm::{Admission16, Admission4};
use crate::sbuf::{SharedBuffer16, SharedBuffer4};
use crate::sing::{SwitchIngress16, SwitchIngress4};
use crate::sque::{SwitchQueues16, SwitchQueues4};
use crate::statereg::StateReg16x32;
use crate::switch2::{SharedSwitch16, SharedSwitch4};
use crate::timer::{Timer128, Timer16};

/// One emitted block configuration.
pub struct BlockSpec {
    /// Module and file name (`verilog-out/<name>.v`).
    pub name: &'static str,
    /// What it is, for listings.
    pub about: &'static str,
    /// Builds the block and returns its Verilog.
    pub verilog: fn() -> Result<String, EmitError>,
}

/// The NIC tops' sub-blocks emitted cut into their dependency groups (beside the top):
/// those whose ready answers a neighbour's valid, or whose valid a neighbour's ready, in
/// the same cycle (`emit::emit_verilog_grouped`; Verilator's `UNOPTFLAT` named these).
pub const NIC_GROUPED: &[&str] = &["parser", "core", "prog", "reasm", "pg", "arb"];

/// All emitted blocks, in a stable order.
pub fn blocks() -> Vec<BlockSpec> {
    vec![
        BlockSpec {
            name: "timer_n16",
            about: "scanning timer, 16 entries, 16-bit metadata",
            verilog: || emit_verilog("timer_n16", Timer16::new()),
        },
        BlockSpec {
            name: "timer_n128",
            about: "scanning timer, 128 entries, 16-bit metadata",
            verilog: || emit_verilog("timer_n128", Timer128::new()),
        },
        BlockSpec {
            name: "reassembly_n16",
            about: "reassembly, 16 messages, 4 size classes (202 KiB of buffers)",
            verilog: || {
                emit_verilog(
                    "reassembly_n16",
                    Reassembly16::new(&ReassemblyConfig::n16()),
                )
            },
        },
        BlockSpec {
            name: "reassembly_n128",
            about: "reassembly, 128 messages, 4 size classes (944 KiB of buffers)",
            verilog: || {
                emit_verilog(
                    "reassembly_n128",
                    Reassembly128::new(&ReassemblyConfig::n128()),
                )
            },
        },
        BlockSpec {
            name: "packetization_n16",
            about: "packetization, 16 messages, 4 size classes (202 KiB of buffers)",
            verilog: || {
                emit_verilog(
                    "packetization_n16",
                    Packetization16::new(&ReassemblyConfig::n16()),
                )
            },
        },
        BlockSpec {
            name: "packetization_n128",
            about: "packetization, 128 messages, 4 size classes (944 KiB of buffers)",
            verilog: || {
                emit_verilog(
                    "packetization_n128",
                    Packetization128::new(&ReassemblyConfig::n128()),
                )
            },
        },
        BlockSpec {
            name: "arbiter",
            about: "control-first, packet-boundary arbiter of control and data packets",
            verilog: || emit_verilog("arbiter", Arbiter::new()),
        },
        BlockSpec {
            name: "parser_ndp",
            about: "ingress parser and checker, NDP transport layout (512-word frame ring)",
            verilog: || emit_verilog("parser_ndp", Parser::new(false)),
        },
        BlockSpec {
            name: "parser_homa",
            about: "ingress parser and checker, Homa transport layout (512-word frame ring)",
            verilog: || emit_verilog("parser_homa", Parser::new(true)),
        },
        BlockSpec {
            name: "deparser_ndp",
            about: "egress deparser: headers and IPv4 checksum from the metadata, NDP layout",
            verilog: || emit_verilog("deparser_ndp", Deparser::new(false)),
        },
        BlockSpec {
            name: "deparser_homa",
            about: "egress deparser: headers and IPv4 checksum from the metadata, Homa layout",
            verilog: || emit_verilog("deparser_homa", Deparser::new(true)),
        },
        BlockSpec {
            name: "pktgen_n16",
            about:
                "packet generator: ACK/NACK/PULL/GRANT from CtrlPktEvent, paced PULLs, 16 messages",
            verilog: || emit_verilog("pktgen_n16", PacketGen16::new()),
        },
        BlockSpec {
            name: "statereg_16x32",
            about: "stateful register externs (RW, RAW, PRAW, ifElseRAW), 16 x 32 bits, ingress and egress ports",
            verilog: || emit_verilog("statereg_16x32", StateReg16x32::new()),
        },
        BlockSpec {
            name: "prisched_n16",
            about: "priority scheduler: 16 entries compared at once, 16-deep overflow FIFO, 16 ids",
            verilog: || emit_verilog("prisched_n16", PrioSched16::new()),
        },
        BlockSpec {
            name: "prisched_n128",
            about: "priority scheduler: 16 entries compared at once, 16-deep overflow FIFO, 128 ids",
            verilog: || emit_verilog("prisched_n128", PrioSched128::new()),
        },
        BlockSpec {
            name: "nic_ndp",
            about: "the NIC running NDP: parser, ingress stage, NDP program, reassembly, packetization, packet generator, arbiter, deparser; 16 messages per direction",
            verilog: || emit_verilog_grouped("nic_ndp", NicNdp::new(), NIC_GROUPED),
        },
        BlockSpec {
            name: "nic_ndp_n128",
            about: "the NIC running NDP with 128 messages per direction: as nic_ndp with reassembly_n128, packetization_n128 (2 x 944 KiB of buffers) and a 128-message packet generator and program; for synthesis (thesis Table 3.2)",
            verilog: || emit_verilog_grouped("nic_ndp_n128", NicNdp128::new(), NIC_GROUPED),
        },
        BlockSpec {
            name: "nic_ndp_fpga",
            about: "the NIC running NDP as built for an FPGA: as nic_ndp with half the buffer memory per direction (2 x 38 KiB buffers instead of 4; 126 KiB in 2^14 words), so that it fits an ECP5-85F's block RAM",
            verilog: || emit_verilog_grouped("nic_ndp_fpga", NicNdpFpga::new(), NIC_GROUPED),
        },
        BlockSpec {
            name: "nic_homa",
            about: "the NIC running Homa: as nic_ndp with the Homa program (priority scheduler, SRPT grants) and the Homa header layout; 16 messages per direction",
            verilog: || emit_verilog_grouped("nic_homa", NicHoma::new(), NIC_GROUPED),
        },
        BlockSpec {
            name: "nic_bolt",
            about: "the NIC running Bolt (thesis Algorithm 8): as nic_ndp with the Bolt program (per-message windows in a RAM, SRC handling with 16x16 multipliers), a parser that accepts SRC packets and the Bolt TX stamp; 16 messages per direction",
            verilog: || emit_verilog_grouped("nic_bolt", NicBolt::new(), NIC_GROUPED),
        },
        BlockSpec {
            name: "sbuf_p4",
            about: "the switch's shared packet buffer, 4 ports: 2048 cells of 4 words (64 KiB) in 4 banks written by rotation, two read replicas, free lists, per-output row readers and serializers, trimmed headers and Bolt SRCs written in",
            verilog: || emit_verilog("sbuf_p4", SharedBuffer4::new()),
        },
        BlockSpec {
            name: "sbuf_p16",
            about: "the shared packet buffer, 16 ports: 512 cells of 16 words (64 KiB)",
            verilog: || emit_verilog("sbuf_p16", SharedBuffer16::new()),
        },
        BlockSpec {
            name: "sadm_p4",
            about: "the switch's admission, 4 ports, one lane: round robin over the inputs' requests, occupancy per (output, band) and per output in packets and bytes, static limits on both, band 0's header limits, a Choudhury-Hahne dynamic threshold, headroom in free cells, trimming and return to sender, Tofino-style trimming's meters, modes and deflection (policy block `stofino`), Bolt's tokens, flags and SRC decisions (policy block `sbolt`); a limit is exceeded by at most 4 packets",
            verilog: || emit_verilog("sadm_p4", Admission4::new()),
        },
        BlockSpec {
            name: "sadm_p16",
            about: "the admission, 16 ports, two lanes of 8 inputs; a limit is exceeded by at most 9 packets",
            verilog: || emit_verilog("sadm_p16", Admission16::new()),
        },
        BlockSpec {
            name: "sing_p4",
            about: "the switch's ingress, 4 ports: header parse, route lookup (lowest matching entry), band by tos or flags, an 8-word delay line so that only well-formed, routed frames of 8 words or more reach the buffer, one admission request per frame",
            verilog: || emit_verilog("sing_p4", SwitchIngress4::new()),
        },
        BlockSpec {
            name: "sing_p16",
            about: "the ingress, 16 ports",
            verilog: || emit_verilog("sing_p16", SwitchIngress16::new()),
        },
        BlockSpec {
            name: "sque_p4",
            about: "the switch's queues and output schedulers, 4 ports: descriptor queues per (lane, output, band) as linked lists through a descriptor memory indexed by head cell (2048 cells), strict priority or WRR over bands, round robin over lanes, departures to the admission",
            verilog: || emit_verilog("sque_p4", SwitchQueues4::new()),
        },
        BlockSpec {
            name: "sque_p16",
            about: "the queues and schedulers, 16 ports: two lanes, two replicas (a slot every 8 cycles per output), 512 cells",
            verilog: || emit_verilog("sque_p16", SwitchQueues16::new()),
        },
        BlockSpec {
            name: "switch2_p4",
            about: "the switch, 4 ports: drop-tail, ideal trimming with return to sender, Tofino-style trimming (meters, deflect-on-drop, recirculation, the control loop), Bolt (SRC, PRU, SM); ingress, admission with its policy blocks, shared buffer (64 KiB), queues and schedulers, a register at every block boundary",
            verilog: || emit_verilog("switch2_p4", SharedSwitch4::new()),
        },
        BlockSpec {
            name: "switch2_p16",
            about: "the switch, 16 ports: two admission lanes, 64 KiB, up to 4 ingress pipes (Tofino-style trimming)",
            verilog: || emit_verilog("switch2_p16", SharedSwitch16::new()),
        },
    ]
}

/// Stack of an emission thread (address space only; pages are touched as used).
const EMIT_STACK: usize = 1 << 30;

/// Emits every block, on all cores (the 16-port switch alone takes about a minute, so it
/// starts first); results in [`blocks`] order.
pub fn emit_all() -> Vec<(&'static str, Result<String, EmitError>)> {
    let specs = blocks();
    let mut order: Vec<usize> = (0..specs.len()).collect();
    order.sort_by_key(|&k| specs[k].name != "switch2_p16");
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut done: Vec<(usize, Result<String, EmitError>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                // rust-hdl builds a block and its generator state on the stack: the
                // 16-port switch needs far more than a spawned thread's default 2 MiB.
                std::thread::Builder::new()
                    .stack_size(EMIT_STACK)
                    .spawn_scoped(s, || {
                        let mut mine = vec![];
                        loop {
                            let j = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(&k) = order.get(j) else { break mine };
                            mine.push((k, (specs[k].verilog)()));
                        }
                    })
                    .expect("spawn an emission thread")
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("emission thread"))
            .collect()
    });
    done.sort_by_key(|d| d.0);
    done.into_iter().map(|(k, v)| (specs[k].name, v)).collect()
}

/// Looks a block up by name.
pub fn block(name: &str) -> Option<BlockSpec> {
    blocks().into_iter().find(|b| b.name == name)
}
