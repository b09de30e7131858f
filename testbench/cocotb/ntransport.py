"""cocotb harness for the emitted NIC Verilog (`verilog-out/nic_*.v`).

What a hardware engineer extends: the nanoTransport header as a scapy layer, frames to
and from the 64-bit MAC word streams, and one driver/monitor object per NIC top
(`Nic`) that runs the clock, applies the configuration, drives `mac_rx` and `app_tx`,
and collects what leaves on `mac_tx`, `app_rx` and `status`.

Wire format (SPEC §2, `sim/src/wire.rs`): Ethernet 0-13, IPv4 14-33 (protocol 155 for NDP,
154 for Homa), the transport header 34-63, payload from 64. A MAC word carries 8 frame
bytes, the first in bits 63:56; `empty` counts the unused bytes of the last word.

The emitted ports are named `group$field` (`mac_rx$valid`); `Nic.port` reaches them.
"""

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge
from scapy.fields import ByteField, ShortField, StrFixedLenField
from scapy.layers.inet import IP
from scapy.layers.l2 import Ether
from scapy.packet import Packet, bind_layers

PROTO_NDP = 155
PROTO_HOMA = 154

FLAG_DATA = 0x01
FLAG_ACK = 0x02
FLAG_NACK = 0x04
FLAG_PULL = 0x08
FLAG_CHOP = 0x10

STATUS_DELIVERED = 1
STATUS_GAVE_UP = 2
STATUS_REFUSED = 3

HDR_BYTES = 64


class NdpHdr(Packet):
    """The 30-byte transport header, NDP layout (bytes 34-63 of the frame)."""

    name = "nanoTransport NDP"
    fields_desc = [
        ByteField("flags", FLAG_DATA),
        ShortField("sport", 0),
        ShortField("dport", 0),
        ShortField("msg_len", 0),
        ByteField("pkt_offset", 0),
        ShortField("pull_offset", 0),
        ShortField("tx_msg_id", 0),
        ShortField("buf_ptr", 0),
        ByteField("buf_class", 0),
        # byte 49 unused, Bolt's 9 bytes at 50-58, padding to byte 63
        StrFixedLenField("rest", b"\x00" * 15, 15),
    ]


bind_layers(IP, NdpHdr, proto=PROTO_NDP)


def ndp_frame(dst_mac, src_mac, src_ip, dst_ip, payload=b"", **transport):
    """A frame of the NDP layout: scapy fills in the IPv4 length and checksum."""
    return (
        Ether(dst=dst_mac, src=src_mac)
        / IP(src=src_ip, dst=dst_ip, flags="DF", ttl=64, proto=PROTO_NDP)
        / NdpHdr(**transport)
        / payload
    )


def ipv4_checksum_ok(frame_bytes):
    """True when the IPv4 header of `frame_bytes` sums to 0xffff."""
    s = sum(int.from_bytes(frame_bytes[i : i + 2], "big") for i in range(14, 34, 2))
    while s > 0xFFFF:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


def to_words(data):
    """Bytes as MAC words: (data, last, empty), first byte in bits 63:56."""
    words = []
    for i in range(0, len(data), 8):
        chunk = data[i : i + 8]
        empty = 8 - len(chunk)
        word = int.from_bytes(chunk + b"\x00" * empty, "big")
        words.append((word, i + 8 >= len(data), empty))
    return words


def from_words(words):
    """MAC words (data, last, empty) back to bytes."""
    out = b""
    for data, _last, empty in words:
        out += int(data).to_bytes(8, "big")[: 8 - empty]
    return out


async def stream_words(clock, port, prefix, fields):
    """Yields, each cycle `prefix$valid` is high (with its sink always ready), the values
    of `prefix$<field>` for `fields` in that cycle. `port(name)` reaches a port."""
    valid = port(prefix + "$valid")
    ports = [port(f"{prefix}${f}") for f in fields]
    while True:
        await RisingEdge(clock)
        await ReadOnly()
        if int(valid.value):
            yield [int(p.value) for p in ports]


async def collect_frames(clock, port, prefix, into):
    """Appends every frame that leaves MAC stream `prefix` (`data`, `last`, `empty`) to
    `into` as bytes."""
    words = []
    async for data, last, empty in stream_words(clock, port, prefix, ("data", "last", "empty")):
        words.append((data, last, empty))
        if last:
            into.append(from_words(words))
            words = []


async def drive_stream(clock, port, prefix, beats):
    """Drives `prefix`'s stream with `beats` (dicts of field values), one per cycle
    while `prefix$ready` is high at the clock edge."""
    valid, ready = port(prefix + "$valid"), port(prefix + "$ready")
    for beat in beats:
        for k, v in beat.items():
            port(f"{prefix}${k}").value = v
        valid.value = 1
        while True:
            await RisingEdge(clock)
            if int(ready.value):
                break
    valid.value = 0


def frame_beats(frame_bytes):
    """A frame's MAC words as beats for `drive_stream`."""
    return [{"data": d, "last": int(l), "empty": e} for d, l, e in to_words(bytes(frame_bytes))]


def mac_str(mac):
    return ":".join(f"{(mac >> (8 * (5 - i))) & 0xFF:02x}" for i in range(6))


def ip_str(ip):
    return ".".join(str((ip >> (8 * (3 - i))) & 0xFF) for i in range(4))


class Harness:
    """What the NIC and switch harnesses share: ports by name, the clock and reset."""

    def __init__(self, dut):
        self.dut = dut

    def port(self, name):
        return self.dut._id(name, extended=False)

    async def cycles(self, n):
        for _ in range(n):
            await RisingEdge(self.dut.clock)

    async def _start_and_reset(self, inputs):
        """Runs the clock, sets `inputs` (port name -> value) and holds reset for 4
        cycles."""
        cocotb.start_soon(Clock(self.dut.clock, 2, units="ns").start())
        for k, v in inputs.items():
            self.port(k).value = v
        self.dut.reset.value = 1
        await self.cycles(4)
        self.dut.reset.value = 0


class Nic(Harness):
    """A NIC top (`nic_ndp`, `nic_homa`, `nic_bolt`, ...) under cocotb.

    `start()` runs the clock, configures and resets it and starts the monitors; then
    `send_frame` drives MAC RX, `send_message` the application's TX port, and
    `tx_frames`, `rx_messages` and `statuses` fill as the NIC answers. `cycle` counts
    clock edges since the start.
    """

    def __init__(self, dut, mac, ip, switch_mac, rtt_pkts=10, timeout=22_400, max_retries=5):
        super().__init__(dut)
        self.mac, self.ip, self.switch_mac = mac, ip, switch_mac
        self.cfg = {
            "cfg$mac": mac,
            "cfg$ip": ip,
            "cfg$switch_mac": switch_mac,
            "cfg$rtt_pkts": rtt_pkts,
            "cfg$timeout": timeout,
            "cfg$max_retries": max_retries,
            "cfg$rx_timeout": timeout * (max_retries + 2),
            "cfg$pull_gap": 136,
            "cfg$pace_nacks": 1,
        }
        self.cycle = 0
        self.tx_frames = []  # bytes of each frame sent
        self.rx_messages = []  # (cycle, src_ip, src_context, local_port, payload)
        self.statuses = []  # (cycle, tx_msg_id, code)

    async def start(self):
        inputs = dict(self.cfg)
        inputs.update({k: 0 for k in ("mac_rx$valid", "app_tx$valid")})
        inputs.update({k: 1 for k in ("mac_tx$ready", "app_rx$ready", "status$ready")})
        await self._start_and_reset(inputs)
        cocotb.start_soon(self._count())
        cocotb.start_soon(self._monitor_mac_tx())
        cocotb.start_soon(self._monitor_app_rx())
        cocotb.start_soon(self._monitor_status())

    async def _count(self):
        while True:
            await RisingEdge(self.dut.clock)
            self.cycle += 1

    def _words(self, prefix, fields):
        return stream_words(self.dut.clock, self.port, prefix, fields)

    async def _monitor_mac_tx(self):
        await collect_frames(self.dut.clock, self.port, "mac_tx", self.tx_frames)

    async def _monitor_app_rx(self):
        words = []
        async for data, last, local_port in self._words("app_rx", ("data", "last", "local_port")):
            words.append(data)
            if last:
                hdr = words[0]
                length = hdr & 0xFFFF
                payload = b"".join(w.to_bytes(8, "big") for w in words[1:])[:length]
                self.rx_messages.append(
                    (self.cycle, hdr >> 32, (hdr >> 16) & 0xFFFF, local_port, payload)
                )
                words = []

    async def _monitor_status(self):
        async for tx_msg_id, code in self._words("status", ("tx_msg_id", "code")):
            self.statuses.append((self.cycle, tx_msg_id, code))

    async def _drive(self, prefix, beats):
        await drive_stream(self.dut.clock, self.port, prefix, beats)

    async def send_frame(self, frame_bytes):
        """One frame into MAC RX, a word per cycle."""
        await self._drive("mac_rx", frame_beats(frame_bytes))

    async def send_message(self, dst_ip, dst_context, src_context, payload):
        """One message into the application's TX port: the TX app header, then the
        payload words."""
        hdr = dst_ip << 32 | dst_context << 16 | len(payload)
        beats = [{"data": hdr, "last": 0, "src_port": src_context}]
        for d, l, _e in to_words(payload):
            beats.append({"data": d, "last": int(l), "src_port": src_context})
        await self._drive("app_tx", beats)

    def stat(self, name):
        """A counter of the top's `stat` outputs (`stat$rx_delivered`: `rx_delivered`)."""
        return int(self.port("stat$" + name).value)


def port_ip(port):
    """The address the default forwarding table sends to port `port`: 10.0.0.(1+port)."""
    return 0x0A00_0001 + port


class Switch(Harness):
    """The shared-buffer switch (`switch2_p4`, `switch2_p16`) under cocotb.

    `start(**cfg)` runs the clock, applies a configuration (drop-tail, generous limits,
    the table 10.0.0.(1+k) -> k, every Tofino and Bolt input off; keyword arguments set
    any `cfg$`/`band$`/`tof$`/`bolt$` input by its port name, `band$*$lim_pkts` for every
    band) and resets it; `send_frame(k, bytes)` drives input `k`; `tx_frames[k]` collects
    what output `k` sends.
    """

    def __init__(self, dut, ports):
        super().__init__(dut)
        self.ports = ports
        self.tx_frames = [[] for _ in range(ports)]

    def config(self):
        n = self.ports
        # The admission's headroom, as sim/src/switch2_sim.rs `headroom(n)` computes it.
        lanes = (n + 7) // 8
        headroom = n * (4 + -(-64 // n)) + (5 * lanes - 1) * -(-136 // n)
        c = {
            "cfg$band_by_flags": 0,
            "cfg$wrr": 0,
            "cfg$dt_on": 0,
            "cfg$trim": 0,
            "cfg$ret": 0,
            "cfg$headroom": headroom,
            "cfg$port_pkts": 0xFFFF,
            "cfg$port_bytes": 0xFFFF_FFFF,
            "cfg$hdr_pkts": 64,
            "cfg$hdr_bytes": 16 * 1024,
            "cfg$link_rate": 200,
            "tof$on": 0,
            "tof$pipes": 4,
            "tof$burst": 16 * 1024,
            "tof$t0": 4096,
            "tof$t1": 4096,
            "tof$lim_dod": 0xFFFF,
            "bolt$on": 0,
            "bolt$cc_thresh": 1088,
            "bolt$mtu": 1088,
            "bolt$pru_cap": 255,
            "bolt$sm_off": 0,
        }
        for b in range(4):
            c[f"band${b}$lim_pkts"] = 64
            c[f"band${b}$lim_bytes"] = 16 * 1024
            c[f"band${b}$dt_a"] = 4
            c[f"band${b}$weight"] = 1
        for k in range(n):
            c[f"route${k}$valid"] = 1
            c[f"route${k}$ip"] = port_ip(k)
            c[f"route${k}$port"] = k
        return c

    async def start(self, **overrides):
        cfg = self.config()
        for k, v in overrides.items():
            if k.startswith("band$*$"):
                for b in range(4):
                    cfg[k.replace("*", str(b))] = v
            else:
                cfg[k] = v
        for k in range(self.ports):
            cfg[f"rx${k}$valid"] = 0
            cfg[f"tx${k}$ready"] = 1
        await self._start_and_reset(cfg)
        await self.cycles(1)
        for k in range(self.ports):
            cocotb.start_soon(self._monitor_tx(k))

    async def _monitor_tx(self, k):
        await collect_frames(self.dut.clock, self.port, f"tx${k}", self.tx_frames[k])

    async def send_frame(self, k, frame_bytes):
        """One frame into input `k`, a word per cycle while the input is ready."""
        await drive_stream(self.dut.clock, self.port, f"rx${k}", frame_beats(frame_bytes))

    def stat(self, k, name):
        """Counter `name` of port `k` (`stat$<k>$<name>`)."""
        return int(self.port(f"stat${k}${name}").value)
