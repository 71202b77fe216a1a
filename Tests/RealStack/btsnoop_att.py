"""A Progressor session read back from a btsnoop capture, for the emulated peripheral (docs/bluez.md, "The real
stack in a VM").

The captures in captures/ are what griptrack's simulator writes (docs/btsnoop.md): datalink 1002 (H4) or 2001
(btmon), HCI ACL → L2CAP → ATT, with the GATT discovery at the start. This reader keeps what a peripheral needs to
play the session again: the device's characteristics (by UUID, from the Read By Type responses), and the session cut
into *segments*: each starts at a START written to the control point and holds the data point's notifications after
it, with their capture times relative to that write; it ends at STOP, at a link loss (Disconnection Complete) or at
the end of the file. Command responses (code 0x00) are left out: the peripheral answers the commands it is sent.

It is deliberately independent of GripWire's reader (the thing under test reads the same files).
"""
import struct

ATT_CID = 0x0004
START, STOP = 0x65, 0x66


class Segment:
    def __init__(self, start_us):
        self.start_us = start_us
        # (seconds after the START write, value bytes)
        self.frames = []
        # "stop", "link_lost" or "end"; the disconnect's HCI reason for a link loss
        self.end = "end"
        self.reason = None
        self.end_offset = None
        # seconds from the link loss to the next connection in the capture (None: no reconnection)
        self.gap = None

    def __repr__(self):
        return f"Segment({len(self.frames)} frames, end={self.end}, reason={self.reason}, gap={self.gap})"


def records(path):
    """(datalink, flags, timestamp µs, bytes) per record."""
    with open(path, "rb") as file:
        data = file.read()
    if data[:8] != b"btsnoop\0":
        raise ValueError(f"{path}: not a btsnoop file")
    version, datalink = struct.unpack(">II", data[8:16])
    offset = 16
    while offset + 24 <= len(data):
        _, included, flags, _, timestamp = struct.unpack(">IIIIq", data[offset:offset + 24])
        offset += 24
        yield datalink, flags, timestamp, data[offset:offset + included]
        offset += included


def packets(path):
    """("event", ts, bytes) for HCI events and ("att", ts, rx, pdu) for complete ATT PDUs (rx: from the device)."""
    partial = {}
    for datalink, flags, timestamp, packet in records(path):
        if datalink == 1002:
            if not packet:
                continue
            kind, packet = packet[0], packet[1:]
            if kind == 4:
                yield "event", timestamp, packet
                continue
            if kind != 2:
                continue
            rx = bool(flags & 1)
        elif datalink == 2001:
            opcode = flags & 0xFFFF
            if opcode == 3:
                yield "event", timestamp, packet
                continue
            if opcode not in (4, 5):
                continue
            rx = opcode == 5
        elif datalink == 1001:
            if flags & 2:
                if flags & 1:
                    yield "event", timestamp, packet
                continue
            rx = bool(flags & 1)
        else:
            raise ValueError(f"{path}: datalink {datalink} not supported")
        if len(packet) < 4:
            continue
        handle, length = struct.unpack("<HH", packet[:4])
        boundary, handle = (handle >> 12) & 3, handle & 0xFFF
        key, body = (handle, rx), packet[4:4 + length]
        if boundary == 1:
            if key not in partial:
                continue
            partial[key] += body
        else:
            partial[key] = body
        pdu = partial[key]
        if len(pdu) < 4:
            continue
        l2cap_length, channel = struct.unpack("<HH", pdu[:4])
        if len(pdu) - 4 < l2cap_length:
            continue
        del partial[key]
        if channel == ATT_CID:
            yield "att", timestamp, rx, bytes(pdu[4:4 + l2cap_length])


def uuid_from_le(raw):
    if len(raw) == 2:
        return f"0000{raw[1]:02x}{raw[0]:02x}-0000-1000-8000-00805f9b34fb"
    text = raw[::-1].hex()
    return f"{text[0:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:32]}"


class Session:
    """The capture's characteristics and segments."""

    def __init__(self, path, data_uuid, control_uuid):
        self.path = path
        self.characteristics = {}  # UUID → value handle
        self.segments = []
        items = list(packets(path))
        for item in items:
            if item[0] == "att" and item[2] and item[3][0] == 0x09 and len(item[3]) > 2:
                pdu, size = item[3], item[3][1]
                for offset in range(2, len(pdu) - size + 1, size):
                    entry = pdu[offset:offset + size]
                    self.characteristics[uuid_from_le(entry[5:])] = struct.unpack("<H", entry[3:5])[0]
        data, control = self.characteristics.get(data_uuid), self.characteristics.get(control_uuid)
        if data is None or control is None:
            raise ValueError(f"{path}: no discovery of {data_uuid} and {control_uuid} in the capture")
        current, lost = None, None
        for item in items:
            if item[0] == "event":
                _, timestamp, event = item
                if event[0] == 0x05 and len(event) >= 6:  # Disconnection Complete
                    if current is not None:
                        current.end, current.reason = "link_lost", event[5]
                        current.end_offset = (timestamp - current.start_us) / 1e6
                        lost, current = (current, timestamp), None
                elif event[0] == 0x3E and len(event) > 2 and event[2] in (0x01, 0x0A):  # LE (Enhanced) Conn Complete
                    if lost is not None:
                        lost[0].gap = (timestamp - lost[1]) / 1e6
                        lost = None
                continue
            _, timestamp, rx, pdu = item
            if not rx and pdu[0] in (0x12, 0x52) and len(pdu) >= 4 and struct.unpack("<H", pdu[1:3])[0] == control:
                opcode = pdu[3]
                if opcode == START and current is None:
                    current = Segment(timestamp)
                    self.segments.append(current)
                elif opcode == STOP and current is not None:
                    current.end, current.end_offset = "stop", (timestamp - current.start_us) / 1e6
                    current = None
            elif rx and pdu[0] == 0x1B and len(pdu) >= 4 and struct.unpack("<H", pdu[1:3])[0] == data:
                value = pdu[3:]
                if current is not None and value[:1] != b"\x00":
                    current.frames.append(((timestamp - current.start_us) / 1e6, value))
        if current is not None and current.frames:
            current.end_offset = current.frames[-1][0]


if __name__ == "__main__":
    import sys
    session = Session(sys.argv[1], "7e4e1702-1ea6-40c9-9dcc-13d34ffead57", "7e4e1703-1ea6-40c9-9dcc-13d34ffead57")
    print(session.characteristics)
    for segment in session.segments:
        print(segment, segment.frames[0][0] if segment.frames else None, segment.end_offset)
