"""cocotb tests of the 4-port shared-buffer switch's emitted Verilog
(`verilog-out/switch2_p4.v`), packets built and read with scapy. Run by `run.py`."""

import cocotb
from cocotb.triggers import Combine
from scapy.layers.inet import IP
from scapy.layers.l2 import Ether

from ntransport import (
    FLAG_CHOP,
    FLAG_DATA,
    NdpHdr,
    Switch,
    ip_str,
    ipv4_checksum_ok,
    ndp_frame,
    port_ip,
)


def frame(src_port, dst_port, payload_len, tx_msg_id):
    """A DATA packet of a message of `payload_len` bytes from the host on port `src_port`
    to the host on port `dst_port`."""
    return bytes(
        ndp_frame(
            "02:00:00:00:00:fe",
            f"02:00:00:00:00:0{src_port}",
            ip_str(port_ip(src_port)),
            ip_str(port_ip(dst_port)),
            bytes((tx_msg_id + i) & 0xFF for i in range(payload_len)),
            flags=FLAG_DATA,
            sport=100 + src_port,
            dport=200,
            msg_len=payload_len,
            tx_msg_id=tx_msg_id,
        )
    )


@cocotb.test()
async def drop_tail_forwards_by_destination_and_drops_what_has_no_route(dut):
    """Drop-tail: each frame leaves the port its destination address routes to, byte for
    byte; a frame to an address with no route is dropped and counted at its input."""
    sw = Switch(dut, 4)
    await sw.start()
    a, b = frame(0, 2, 16, 0x0101), frame(1, 3, 1024, 0x0102)
    await Combine(cocotb.start_soon(sw.send_frame(0, a)), cocotb.start_soon(sw.send_frame(1, b)))
    stray = bytearray(frame(0, 1, 16, 0x0103))
    stray[33] = 99  # destination 10.0.0.99: no route (the checksum is not checked here)
    await sw.send_frame(0, bytes(stray))
    await sw.cycles(300)
    assert sw.tx_frames[2] == [a], sw.tx_frames
    assert sw.tx_frames[3] == [b], sw.tx_frames
    assert sw.tx_frames[0] == [] and sw.tx_frames[1] == []
    assert sw.stat(0, "rx_frames") == 2 and sw.stat(0, "drop_no_route") == 1
    assert sw.stat(0, "fwd") == 1 and sw.stat(1, "fwd") == 1


@cocotb.test()
async def ideal_trimming_sends_the_excess_packets_header(dut):
    """Ideal trimming with room for one packet per band: a full-size packet that reaches
    an output while another is queued there leaves as its 64-byte header, flagged CHOP,
    with a correct IPv4 length and checksum; the queued one leaves whole. (The second
    starts 40 cycles after the first, once the first's admission is counted: packets
    admitted in the same few cycles may overshoot a limit by the bound
    docs/switch-design.md states.)"""
    sw = Switch(dut, 4)
    await sw.start(**{"cfg$trim": 1, "band$*$lim_pkts": 1})
    a, b = frame(0, 3, 1024, 0x0201), frame(1, 3, 1024, 0x0202)
    first = cocotb.start_soon(sw.send_frame(0, a))
    await sw.cycles(40)
    await Combine(first, cocotb.start_soon(sw.send_frame(1, b)))
    await sw.cycles(400)
    out = sw.tx_frames[3]
    assert len(out) == 2, [len(f) for f in out]
    whole = [f for f in out if len(f) == len(a)]
    hdrs = [f for f in out if len(f) == 64]
    assert whole == [a], [len(f) for f in out]
    assert len(hdrs) == 1, [len(f) for f in out]
    h = hdrs[0]
    assert ipv4_checksum_ok(h)
    p = Ether(h)
    assert p[IP].len == 50
    t = p[NdpHdr]
    assert t.flags == FLAG_DATA | FLAG_CHOP, hex(t.flags)
    # The header is the second packet's: same addresses and message.
    q = Ether(b)
    assert (p[IP].src, p[IP].dst) == (q[IP].src, q[IP].dst)
    assert (t.tx_msg_id, t.msg_len, t.pkt_offset) == (q[NdpHdr].tx_msg_id, 1024, 0)
    assert sum(sw.stat(k, "trimmed") for k in range(4)) == 1
