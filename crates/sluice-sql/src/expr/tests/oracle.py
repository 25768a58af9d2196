"""Regenerate an expression golden file from a real PostgreSQL 15.

usage: python3 oracle.py golden/FILE.txt > new.txt

Each non-comment line's expression (the part before ' => ', or the whole
line) runs as `SELECT <expr> FROM t` on 127.0.0.1:5432 (user postgres, trust
auth, TimeZone UTC), and is printed back with PostgreSQL's answer:
`expr => type = output` or `expr => ERROR sqlstate [@position] message`.
Table `t` must exist with the one row described in `tests/mod.rs`.
A minimal protocol-3 client, so no driver needs installing.
"""
import socket, struct, sys

def msg(t, body): return t + struct.pack('!i', len(body) + 4) + body

class Conn:
    def __init__(self):
        self.s = socket.create_connection(('127.0.0.1', 5432))
        params = b'user\0postgres\0database\0postgres\0TimeZone\0UTC\0DateStyle\0ISO, MDY\0IntervalStyle\0postgres\0extra_float_digits\0' + b'1\0\0'
        body = struct.pack('!i', 196608) + params
        self.s.sendall(struct.pack('!i', len(body) + 4) + body)
        self.buf = b''
        while True:
            t, b = self.read()
            if t == b'Z': break
            if t == b'E': raise Exception(b)
    def recvn(self, n):
        while len(self.buf) < n:
            d = self.s.recv(65536)
            if not d: raise EOFError
            self.buf += d
        r, self.buf = self.buf[:n], self.buf[n:]
        return r
    def read(self):
        h = self.recvn(5)
        t, l = h[:1], struct.unpack('!i', h[1:])[0]
        return t, self.recvn(l - 4)
    def query(self, q):
        self.s.sendall(msg(b'Q', q.encode() + b'\0'))
        cols, rows, err = [], [], None
        while True:
            t, b = self.read()
            if t == b'T':
                n = struct.unpack('!h', b[:2])[0]; p = 2
                for _ in range(n):
                    e = b.index(b'\0', p); name = b[p:e].decode(); p = e + 1
                    _tab, _att, oid, _len, typmod, _fmt = struct.unpack('!ihihih', b[p:p+18]); p += 18
                    cols.append((name, oid, typmod))
            elif t == b'D':
                n = struct.unpack('!h', b[:2])[0]; p = 2; row = []
                for _ in range(n):
                    l = struct.unpack('!i', b[p:p+4])[0]; p += 4
                    if l < 0: row.append(None)
                    else: row.append(b[p:p+l].decode()); p += l
                rows.append(row)
            elif t == b'E':
                err = {}
                for f in b.split(b'\0'):
                    if f: err[chr(f[0])] = f[1:].decode()
            elif t == b'Z':
                return cols, rows, err

def main():
    c = Conn()
    names = {}
    def tname(oid, typmod):
        k = (oid, typmod)
        if k not in names:
            _, r, _ = c.query(f'select format_type({oid}, {typmod if typmod >= 0 else "NULL"})')
            names[k] = r[0][0]
        return names[k]
    for line in open(sys.argv[1]):
        line = line.rstrip('\n')
        if not line.strip() or line.startswith('#'):
            print(line); continue
        expr = line.split(' => ')[0]
        q = f'SELECT {expr} FROM t'
        cols, rows, err = c.query(q)
        if err:
            pos = f" @{err['P']}" if 'P' in err else ''
            print(f"{expr} => ERROR {err['C']}{pos} {err['M']}")
        else:
            v = rows[0][0]
            print(f"{expr} => {tname(cols[0][1], cols[0][2])} = {'<null>' if v is None else v}")

if __name__ == '__main__':
    main()
