"""cocotb tests of the NDP NIC's emitted Verilog (`verilog-out/nic_ndp.v`), packets built
and read with scapy. Run by `run.py` (`python3 testbench/cocotb/run.py`)."""

import cocotb
from scapy.layers.inet import IP
from scapy.layers.l2 import Ether

from ntransport import (
    FLAG_ACK,
    FLAG_DATA,
    FLAG_PULL,
    STATUS_DELIVERED,
    Nic,
    NdpHdr,
    ip_str,
    ipv4_checksum_ok,
    mac_str,
    ndp_frame,
)

NIC_MAC, NIC_IP = 0x0200_0000_000A, 0x0A00_0001
PEER_MAC, PEER_IP = 0x0200_0000_000B, 0x0A00_0002
SWITCH_MAC = 0x0200_0000_00FE


async def started(dut):
    nic = Nic(dut, NIC_MAC, NIC_IP, SWITCH_MAC)
    await nic.start()
    return nic


def data_frame(payload, src_port=1000, dst_port=7, tx_msg_id=0x0103, offset=0, msg_len=None):
    return ndp_frame(
        mac_str(NIC_MAC),
        mac_str(PEER_MAC),
        ip_str(PEER_IP),
        ip_str(NIC_IP),
        payload,
        flags=FLAG_DATA,
        sport=src_port,
        dport=dst_port,
        msg_len=len(payload) if msg_len is None else msg_len,
        pkt_offset=offset,
        tx_msg_id=tx_msg_id,
    )


def parsed(frame_bytes):
    """A frame from MAC TX as scapy reads it, after checking what every frame must be."""
    assert ipv4_checksum_ok(frame_bytes), frame_bytes.hex()
    p = Ether(frame_bytes)
    assert p[Ether].dst == mac_str(SWITCH_MAC), p[Ether].dst
    assert p[Ether].src == mac_str(NIC_MAC), p[Ether].src
    assert p[IP].len == len(frame_bytes) - 14
    assert NdpHdr in p, p.summary()
    return p


@cocotb.test()
async def a_data_packet_is_delivered_and_acknowledged(dut):
    """A one-packet message from the peer reaches the application whole, and the NIC
    answers with an ACK (with the PULL of NDP) addressed to the peer's context."""
    nic = await started(dut)
    payload = bytes(range(0x41, 0x41 + 16))
    await nic.send_frame(bytes(data_frame(payload)))
    await nic.cycles(60)
    assert len(nic.rx_messages) == 1, nic.rx_messages
    _, src_ip, src_ctx, local_port, got = nic.rx_messages[0]
    assert (src_ip, src_ctx, local_port, got) == (PEER_IP, 1000, 7, payload)
    assert nic.stat("rx_delivered") == 1
    assert nic.stat("rx_passed") == 1
    acks = [parsed(b) for b in nic.tx_frames]
    assert len(acks) == 1, [a.summary() for a in acks]
    a = acks[0]
    assert a[IP].src == ip_str(NIC_IP) and a[IP].dst == ip_str(PEER_IP)
    h = a[NdpHdr]
    assert h.flags & FLAG_ACK, hex(h.flags)
    assert h.flags & FLAG_DATA == 0
    # The ACK goes back to the sender's context, from the destination context, and names
    # the message as the sender numbered it.
    assert (h.sport, h.dport, h.tx_msg_id, h.msg_len) == (7, 1000, 0x0103, 16)
    dut._log.info("ACK: %s, flags %#x (PULL %s)", a.summary(), h.flags, bool(h.flags & FLAG_PULL))


@cocotb.test()
async def a_frame_with_a_bad_ipv4_checksum_is_dropped_and_counted(dut):
    """The parser drops a frame whose IPv4 header checksum is wrong: counted by reason,
    nothing delivered, nothing sent."""
    nic = await started(dut)
    f = bytearray(bytes(data_frame(b"x" * 16)))
    f[24] ^= 0x01  # the checksum's high byte
    await nic.send_frame(bytes(f))
    await nic.cycles(60)
    assert nic.stat("rx_frames") == 1
    assert nic.stat("rx_drop_bad_checksum") == 1
    assert nic.stat("rx_passed") == 0
    assert nic.rx_messages == [] and nic.tx_frames == []


@cocotb.test()
async def a_truncated_packet_is_dropped_and_a_good_one_after_it_delivered(dut):
    """A DATA packet cut short of the length its IPv4 header claims is dropped as a bad
    length; the next, whole, packet of another message is delivered."""
    nic = await started(dut)
    whole = bytes(data_frame(b"y" * 16, tx_msg_id=0x0201))
    await nic.send_frame(whole[:-8])
    await nic.send_frame(bytes(data_frame(b"z" * 16, tx_msg_id=0x0202)))
    await nic.cycles(60)
    assert nic.stat("rx_drop_bad_length") == 1
    assert [m[4] for m in nic.rx_messages] == [b"z" * 16]


@cocotb.test()
async def a_message_is_sent_and_its_ack_completes_it(dut):
    """A message from the application leaves as one DATA packet; the peer's ACK, built
    with scapy, completes it: the NIC reports it delivered on `status`."""
    nic = await started(dut)
    payload = b"hello, cocotb!!"
    await nic.send_message(PEER_IP, 80, 5000, payload)
    await nic.cycles(40)
    assert len(nic.tx_frames) == 1, nic.tx_frames
    p = parsed(nic.tx_frames[0])
    h = p[NdpHdr]
    assert p[IP].dst == ip_str(PEER_IP) and p[IP].proto == 155
    assert (h.flags, h.sport, h.dport, h.msg_len, h.pkt_offset) == (FLAG_DATA, 5000, 80, len(payload), 0)
    assert bytes(h.payload) == payload
    ack = ndp_frame(
        mac_str(NIC_MAC),
        mac_str(PEER_MAC),
        ip_str(PEER_IP),
        ip_str(NIC_IP),
        b"\x00",  # a control packet's 1-byte dummy payload
        flags=FLAG_ACK | FLAG_PULL,
        sport=80,
        dport=5000,
        msg_len=len(payload),
        pkt_offset=0,
        pull_offset=1,
        tx_msg_id=h.tx_msg_id,
    )
    await nic.send_frame(bytes(ack))
    await nic.cycles(60)
    assert [(s[1], s[2]) for s in nic.statuses] == [(h.tx_msg_id & 0xFF, STATUS_DELIVERED)], nic.statuses
    assert nic.stat("tx_completed") == 1
