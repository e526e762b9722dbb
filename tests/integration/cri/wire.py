"""Protocol-buffers wire format for the few CRI messages the test client sends and reads.

Debian's grpc tools are too old for the CRI protos, and the test must not need protoc, so
messages are described by small schemas (field name -> number, kind) and encoded by hand.
Kinds: "string", "bytes", "bool", "int" (varint, int32/int64/enum; negative as two's
complement 64-bit, as protobuf does), a schema dict (embedded message), "map" (map<string,
string>), and ["repeated", kind]. Unknown fields are skipped when decoding.
"""


def _varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _key(num, wire_type):
    return _varint((num << 3) | wire_type)


def _len_delimited(num, payload):
    return _key(num, 2) + _varint(len(payload)) + payload


def _encode_one(num, kind, value):
    if kind == "string":
        return _len_delimited(num, value.encode())
    if kind == "bytes":
        return _len_delimited(num, value)
    if kind in ("int", "bool"):
        return _key(num, 0) + _varint(int(value))
    if kind == "map":  # map<string,string>: repeated entries {key = 1; value = 2}
        return b"".join(_len_delimited(num, encode({"key": (1, "string"), "value": (2, "string")},
                                                   {"key": k, "value": v})) for k, v in value.items())
    if isinstance(kind, dict):
        return _len_delimited(num, encode(kind, value))
    raise ValueError(f"unknown kind {kind!r}")


def encode(schema, msg):
    """msg: a dict of field name -> value; fields missing or None are left out."""
    out = bytearray()
    for name, value in msg.items():
        if value is None:
            continue
        num, kind = schema[name]
        if isinstance(kind, list):  # ["repeated", element kind]
            for v in value:
                out += _encode_one(num, kind[1], v)
        else:
            out += _encode_one(num, kind, value)
    return bytes(out)


def _read_varint(buf, i):
    shift = n = 0
    while True:
        b = buf[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, i


def _fields(buf):
    """Yields (number, wire type, value): an int for varints, bytes for the rest."""
    i = 0
    while i < len(buf):
        key, i = _read_varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _read_varint(buf, i)
        elif wt == 2:
            ln, i = _read_varint(buf, i)
            v, i = bytes(buf[i:i + ln]), i + ln
        elif wt == 1:
            v, i = bytes(buf[i:i + 8]), i + 8
        elif wt == 5:
            v, i = bytes(buf[i:i + 4]), i + 4
        else:
            raise ValueError(f"unsupported wire type {wt}")
        yield num, wt, v


def _decode_one(kind, v):
    if kind == "string":
        return v.decode(errors="replace")
    if kind == "bytes":
        return v
    if kind == "bool":
        return bool(v)
    if kind == "int":
        return v - (1 << 64) if v >= 1 << 63 else v
    if isinstance(kind, dict):
        return decode(kind, v)
    raise ValueError(f"unknown kind {kind!r}")


def decode(schema, buf):
    by_num = {num: (name, kind) for name, (num, kind) in schema.items()}
    out = {}
    for num, _, v in _fields(buf):
        if num not in by_num:
            continue
        name, kind = by_num[num]
        if kind == "map":
            e = decode({"key": (1, "string"), "value": (2, "string")}, v)
            out.setdefault(name, {})[e.get("key", "")] = e.get("value", "")
        elif isinstance(kind, list):
            out.setdefault(name, []).append(_decode_one(kind[1], v))
        else:
            out[name] = _decode_one(kind, v)
    return out
