-- Wireshark dissector for nanoTransport (docs/programming.md, SPEC §2): the 30-byte
-- transport header after IPv4, in its NDP layout (IP protocol 155; the Bolt program
-- uses it too) and its Homa layout (IP protocol 154: Homa and Homa-Tr), with Bolt's
-- 9 bytes (thesis Listing 4.1) inside the padding at frame bytes 50-58 in both.
--
-- Install: copy this file into Wireshark's personal Lua plugins folder
-- (~/.local/lib/wireshark/plugins/ on Linux; Help > About Wireshark > Folders shows
-- it), or load it for one run:
--   tshark -X lua_script:tools/wireshark/ntransport.lua -r capture.pcap -V
-- Display filter fields: ntransport.flags, ntransport.flags.data (.ack, .nack,
-- .pull_grant, .chop), ntransport.src_port, ntransport.dst_port, ntransport.msg_len,
-- ntransport.pkt_offset, ntransport.pull_offset (NDP), ntransport.grant_offset and
-- ntransport.grant_prio (Homa), ntransport.tx_msg_id, ntransport.buf_ptr,
-- ntransport.buf_size_class, ntransport.payload_len, and Bolt's ntransport.bolt.q_size,
-- .link_rate, .flags (.data, .ack, .src, .last, .first, .inc, .dec), .t_data_tx.
--
-- The layout is the one of sim/src/wire.rs, from which the test
-- (sim/tests/wireshark.rs) builds the frames it decodes.

local PROTO_NDP = 155
local PROTO_HOMA = 154
local HDR = 30 -- transport header bytes

local p = Proto("ntransport", "nanoTransport")

local F = {
    flags = ProtoField.uint8("ntransport.flags", "Flags", base.HEX),
    f_data = ProtoField.bool("ntransport.flags.data", "DATA", 8, nil, 0x01),
    f_ack = ProtoField.bool("ntransport.flags.ack", "ACK", 8, nil, 0x02),
    f_nack = ProtoField.bool("ntransport.flags.nack", "NACK", 8, nil, 0x04),
    f_pg = ProtoField.bool("ntransport.flags.pull_grant", "PULL (NDP) / GRANT (Homa)", 8, nil, 0x08),
    f_chop = ProtoField.bool("ntransport.flags.chop", "CHOP (trimmed)", 8, nil, 0x10),
    f_undef = ProtoField.uint8("ntransport.flags.undefined", "Undefined bits", base.HEX, nil, 0xe0),
    src_port = ProtoField.uint16("ntransport.src_port", "Source context (port)", base.DEC),
    dst_port = ProtoField.uint16("ntransport.dst_port", "Destination context (port)", base.DEC),
    msg_len = ProtoField.uint16("ntransport.msg_len", "Message length (bytes)", base.DEC),
    pkt_offset = ProtoField.uint8("ntransport.pkt_offset", "Packet offset", base.DEC),
    pull_offset = ProtoField.uint16("ntransport.pull_offset", "Pull offset", base.DEC),
    grant_offset = ProtoField.uint16("ntransport.grant_offset", "Grant offset", base.DEC),
    grant_prio = ProtoField.uint8("ntransport.grant_prio", "Grant priority", base.DEC),
    tx_msg_id = ProtoField.uint16("ntransport.tx_msg_id", "TX message id", base.DEC),
    buf_ptr = ProtoField.uint16("ntransport.buf_ptr", "Buffer pointer", base.DEC),
    buf_class = ProtoField.uint8("ntransport.buf_size_class", "Buffer size class", base.DEC),
    padding = ProtoField.bytes("ntransport.padding", "Padding"),
    bolt = ProtoField.bytes("ntransport.bolt", "Bolt (thesis Listing 4.1)"),
    q_size = ProtoField.uint24("ntransport.bolt.q_size", "Queue size (bytes)", base.DEC),
    link_rate = ProtoField.uint8("ntransport.bolt.link_rate", "Link rate", base.DEC),
    bflags = ProtoField.uint8("ntransport.bolt.flags", "Bolt flags", base.HEX),
    b_data = ProtoField.bool("ntransport.bolt.flags.data", "DATA", 8, nil, 0x80),
    b_ack = ProtoField.bool("ntransport.bolt.flags.ack", "ACK", 8, nil, 0x40),
    b_src = ProtoField.bool("ntransport.bolt.flags.src", "SRC", 8, nil, 0x20),
    b_last = ProtoField.bool("ntransport.bolt.flags.last", "LAST", 8, nil, 0x10),
    b_first = ProtoField.bool("ntransport.bolt.flags.first", "FIRST", 8, nil, 0x08),
    b_inc = ProtoField.bool("ntransport.bolt.flags.inc", "INC", 8, nil, 0x04),
    b_dec = ProtoField.bool("ntransport.bolt.flags.dec", "DEC", 8, nil, 0x02),
    t_data_tx = ProtoField.uint32("ntransport.bolt.t_data_tx", "DATA TX time (cycles)", base.DEC),
    payload_len = ProtoField.uint16("ntransport.payload_len", "Payload length (bytes)", base.DEC),
    payload = ProtoField.bytes("ntransport.payload", "Payload"),
}
p.fields = {
    F.flags, F.f_data, F.f_ack, F.f_nack, F.f_pg, F.f_chop, F.f_undef, F.src_port,
    F.dst_port, F.msg_len, F.pkt_offset, F.pull_offset, F.grant_offset, F.grant_prio,
    F.tx_msg_id, F.buf_ptr, F.buf_class, F.padding, F.bolt, F.q_size, F.link_rate,
    F.bflags, F.b_data, F.b_ack, F.b_src, F.b_last, F.b_first, F.b_inc, F.b_dec,
    F.t_data_tx, F.payload_len, F.payload,
}

local e_short = ProtoExpert.new("ntransport.short", "Shorter than the 30-byte transport header",
    expert.group.MALFORMED, expert.severity.ERROR)
p.experts = { e_short }

local ip_proto = Field.new("ip.proto")

-- The packet's kind, from its transport flags (and Bolt's SRC flag), for the Info column.
local function kind(flags, bflags, homa)
    local names = {}
    if bit32.band(flags, 0x01) ~= 0 then names[#names + 1] = "DATA" end
    if bit32.band(flags, 0x02) ~= 0 then names[#names + 1] = "ACK" end
    if bit32.band(flags, 0x04) ~= 0 then names[#names + 1] = "NACK" end
    if bit32.band(flags, 0x08) ~= 0 then names[#names + 1] = homa and "GRANT" or "PULL" end
    if bit32.band(flags, 0x10) ~= 0 then names[#names + 1] = "CHOP" end
    if flags == 0 and bit32.band(bflags, 0x20) ~= 0 then names[#names + 1] = "Bolt SRC" end
    if #names == 0 then return string.format("flags 0x%02x", flags) end
    return table.concat(names, "+")
end

local function add_flags(tree, field, bits, range)
    local t = tree:add(field, range)
    for _, b in ipairs(bits) do t:add(b, range) end
    return t
end

function p.dissector(buf, pinfo, tree)
    local homa = ip_proto()() == PROTO_HOMA
    local layout = homa and "Homa" or "NDP"
    pinfo.cols.protocol = "nT-" .. layout
    local len = buf:len()
    local t = tree:add(p, buf(0, math.min(len, HDR)), "nanoTransport, " .. layout .. " layout")
    if len < HDR then
        t:add_proto_expert_info(e_short)
        pinfo.cols.info = "nanoTransport (truncated)"
        return len
    end
    local flags = buf(0, 1):uint()
    add_flags(t, F.flags, { F.f_data, F.f_ack, F.f_nack, F.f_pg, F.f_chop, F.f_undef }, buf(0, 1))
    t:add(F.src_port, buf(1, 2))
    t:add(F.dst_port, buf(3, 2))
    t:add(F.msg_len, buf(5, 2))
    t:add(F.pkt_offset, buf(7, 1))

    if homa then
        t:add(F.grant_offset, buf(8, 2))
        t:add(F.grant_prio, buf(10, 1))
        t:add(F.tx_msg_id, buf(11, 2))
        t:add(F.buf_ptr, buf(13, 2))
        t:add(F.buf_class, buf(15, 1))
    else
        t:add(F.pull_offset, buf(8, 2))
        t:add(F.tx_msg_id, buf(10, 2))
        t:add(F.buf_ptr, buf(12, 2))
        t:add(F.buf_class, buf(14, 1))
        t:add(F.padding, buf(15, 1))
    end
    -- Bolt's 9 bytes: frame bytes 50-58, transport bytes 16-24 (zero unless Bolt runs)
    local bt = t:add(F.bolt, buf(16, 9))
    bt:add(F.q_size, buf(16, 3))
    bt:add(F.link_rate, buf(19, 1))
    add_flags(bt, F.bflags, { F.b_data, F.b_ack, F.b_src, F.b_last, F.b_first, F.b_inc, F.b_dec },
        buf(20, 1))
    bt:add(F.t_data_tx, buf(21, 4))
    t:add(F.padding, buf(25, HDR - 25))
    local plen = len - HDR
    t:add(F.payload_len, plen):set_generated()
    if plen > 0 then
        tree:add(F.payload, buf(HDR, plen))
    end
    local bflags = buf(20, 1):uint()
    pinfo.cols.info = string.format("%s %d -> %d  len=%d off=%d %s=%d id=%d%s",
        kind(flags, bflags, homa), buf(1, 2):uint(), buf(3, 2):uint(), buf(5, 2):uint(),
        buf(7, 1):uint(), homa and "grant" or "pull", buf(8, 2):uint(),
        homa and buf(11, 2):uint() or buf(10, 2):uint(),
        homa and string.format(" prio=%d", buf(10, 1):uint()) or "")
    return len
end

local ipt = DissectorTable.get("ip.proto")
ipt:add(PROTO_NDP, p)
ipt:add(PROTO_HOMA, p)
