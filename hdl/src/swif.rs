//! What every part of the switch ([`crate::switch2`]) shares with the outside: the MAC
//! stream ports ([`SwitchSink`], [`SwitchSource`]: the NIC's own), a forwarding-table entry
//! ([`RouteCfg`]), and Bolt's flag bits (thesis Listing 4.1, frame byte 54), which the
//! NIC's Bolt program, the switch's Bolt policy, the wire format and the tools all read.
use rust_hdl::prelude::*;

/// Bolt flags (thesis Listing 4.1, frame byte 54): data, ack, src, last, first, inc, dec.
pub const BOLT_DATA: u8 = 0x80;
pub const BOLT_ACK: u8 = 0x40;
pub const BOLT_SRC: u8 = 0x20;
pub const BOLT_LAST: u8 = 0x10;
pub const BOLT_FIRST: u8 = 0x08;
pub const BOLT_INC: u8 = 0x04;
pub const BOLT_DEC: u8 = 0x02;

/// Frames from a MAC (64-bit words, first byte in bits 63:56, `last` on the final word
/// with `empty` = unused bytes of it, 0-7): the NIC parser's MAC stream.
pub use crate::parser::MacSink as SwitchSink;

/// Frames to a MAC, with `ready` (link backpressure): the NIC deparser's MAC stream.
pub use crate::deparser::MacSource as SwitchSource;

/// One forwarding-table entry: `valid`, `ip` (IPv4 destination address), `port`.
#[derive(LogicInterface, Default)]
pub struct RouteCfg {
    pub valid: Signal<In, bool>,
    pub ip: Signal<In, Bits<32>>,
    pub port: Signal<In, Bits<8>>,
}
