package engine

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// selectReply is the server's reply to one pgbench select-only query in
// prepared mode: BindComplete, RowDescription, DataRow, CommandComplete,
// ReadyForQuery.
func selectReply(t testing.TB) []byte {
	var b []byte
	var err error
	for _, m := range []pgproto3.BackendMessage{
		&pgproto3.BindComplete{},
		&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("abalance"), DataTypeOID: 23, DataTypeSize: 4, TypeModifier: -1}}},
		&pgproto3.DataRow{Values: [][]byte{[]byte("-4242")}},
		&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")},
		&pgproto3.ReadyForQuery{TxStatus: 'I'},
	} {
		if b, err = m.Encode(b); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// chunks is a reader that returns its chunks one per Read, as a socket
// returns what has arrived.
type chunks struct {
	c [][]byte
	i int
}

func (r *chunks) Read(p []byte) (int, error) {
	if r.i == len(r.c) {
		return 0, io.EOF
	}
	n := copy(p, r.c[r.i])
	if n < len(r.c[r.i]) {
		r.c[r.i] = r.c[r.i][n:]
	} else {
		r.i++
	}
	return n, nil
}

// TestMsgReaderMatchesFrontend: the same stream, cut anywhere, decodes to
// the same messages as pgproto3's Frontend (messages bigger than the
// buffer included), and RowDescription/DataRow are skipped on request.
func TestMsgReaderMatchesFrontend(t *testing.T) {
	var stream []byte
	for i := 0; i < 3; i++ {
		stream = append(stream, selectReply(t)...)
	}
	big, err := (&pgproto3.DataRow{Values: [][]byte{bytes.Repeat([]byte("x"), 3*msgBufSize), nil, []byte("y")}}).Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	stream = append(stream, big...)
	notice, _ := (&pgproto3.NoticeResponse{Severity: "NOTICE", Code: "00000", Message: "hello"}).Encode(nil)
	stream = append(stream, notice...)
	stream = append(stream, selectReply(t)...)

	for _, cut := range []int{1, 3, 5, 7, 64, 1000, len(stream)} {
		var want []string
		fe := pgproto3.NewFrontend(&chunks{c: split(stream, cut)}, io.Discard)
		for {
			m, err := fe.Receive()
			if err != nil {
				break
			}
			want = append(want, describe(m))
		}
		var got, counted []string
		mr := newMsgReader(&chunks{c: split(stream, cut)})
		for {
			m, err := mr.next(true)
			if err != nil {
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("cut %d: %v", cut, err)
				}
				break
			}
			got = append(got, describe(m))
		}
		mr = newMsgReader(&chunks{c: split(stream, cut)})
		for {
			m, err := mr.next(false)
			if err != nil {
				break
			}
			counted = append(counted, kind(m))
		}
		if len(want) != 22 || !equal(got, want) {
			t.Fatalf("cut %d:\n got %q\nwant %q", cut, got, want)
		}
		for i := range want {
			if counted[i] != want[i][:1] {
				t.Fatalf("cut %d, rows=false: message %d is %s, want %s", cut, i, counted[i], want[i][:1])
			}
		}
	}
}

func TestMsgReaderBadLength(t *testing.T) {
	mr := newMsgReader(bytes.NewReader([]byte{'Z', 0, 0, 0, 2, 'I'}))
	if _, err := mr.next(true); err == nil {
		t.Fatal("length 2 accepted")
	}
	mr = newMsgReader(bytes.NewReader([]byte{'?', 0, 0, 0, 4}))
	if _, err := mr.next(true); err == nil {
		t.Fatal("unknown type accepted")
	}
}

func split(b []byte, n int) [][]byte {
	var c [][]byte
	for len(b) > n {
		c = append(c, append([]byte(nil), b[:n]...))
		b = b[n:]
	}
	return append(c, append([]byte(nil), b...))
}

func describe(m pgproto3.BackendMessage) string {
	switch m := m.(type) {
	case *pgproto3.BindComplete:
		return "2"
	case *pgproto3.RowDescription:
		return "T " + string(m.Fields[0].Name)
	case *pgproto3.DataRow:
		s := "D"
		for _, v := range m.Values {
			s += " " + string(v[:min(len(v), 10)])
		}
		return s
	case *pgproto3.CommandComplete:
		return "C " + string(m.CommandTag)
	case *pgproto3.ReadyForQuery:
		return "Z " + string(m.TxStatus)
	case *pgproto3.NoticeResponse:
		return "N " + m.Message
	}
	return "?"
}

func kind(m pgproto3.BackendMessage) string {
	switch m.(type) {
	case *pgproto3.RowDescription:
		return "T"
	case *pgproto3.DataRow:
		return "D"
	}
	return describe(m)[:1]
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// loop is a reader that returns the same reply at every Read.
type loop struct{ b []byte }

func (l *loop) Read(p []byte) (int, error) { return copy(p, l.b), nil }

// BenchmarkReceive: one select-only reply (five messages, one Read) per op,
// as readResults consumes it.
func BenchmarkReceive(b *testing.B) {
	reply := selectReply(b)
	b.Run("frontend", func(b *testing.B) {
		fe := pgproto3.NewFrontend(&loop{reply}, io.Discard)
		b.ReportAllocs()
		for b.Loop() {
			for {
				m, err := fe.Receive()
				if err != nil {
					b.Fatal(err)
				}
				if _, ok := m.(*pgproto3.ReadyForQuery); ok {
					break
				}
			}
		}
	})
	for _, rows := range []bool{false, true} {
		name := "msgreader"
		if rows {
			name += "-rows"
		}
		b.Run(name, func(b *testing.B) {
			mr := newMsgReader(&loop{reply})
			b.ReportAllocs()
			for b.Loop() {
				for {
					m, err := mr.next(rows)
					if err != nil {
						b.Fatal(err)
					}
					if _, ok := m.(*pgproto3.ReadyForQuery); ok {
						break
					}
				}
			}
		})
	}
}

// FuzzMsgReader: on any byte stream msgReader never panics and returns the
// same messages as pgproto3's Frontend, up to the first error, except for
// the startup-only messages (authentication, key data, function call,
// protocol negotiation) that it does not know.
func FuzzMsgReader(f *testing.F) {
	f.Add(selectReply(f), 3)
	f.Add([]byte{'Z', 0, 0, 0, 5, 'I', 'D', 0, 0, 0, 6, 0, 1}, 1)
	f.Add([]byte{'E', 0, 0, 0, 8, 'S', 'x', 0, 0}, 2)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		if cut < 1 {
			cut = 1
		}
		fe := pgproto3.NewFrontend(&chunks{c: split(data, cut)}, io.Discard)
		fe.SetMaxBodyLen(1 << 16)
		mr := newMsgReader(&chunks{c: split(data, cut)})
		mr.maxBody = 1 << 16
		for i := 0; i < 1000; i++ {
			want, ferr := fe.Receive()
			got, merr := mr.next(true)
			if ferr != nil || merr != nil {
				if ferr == nil {
					switch want.(type) {
					case *pgproto3.BackendKeyData, *pgproto3.FunctionCallResponse, *pgproto3.NegotiateProtocolVersion,
						*pgproto3.AuthenticationOk, *pgproto3.AuthenticationCleartextPassword, *pgproto3.AuthenticationMD5Password,
						*pgproto3.AuthenticationGSS, *pgproto3.AuthenticationGSSContinue, *pgproto3.AuthenticationSASL,
						*pgproto3.AuthenticationSASLContinue, *pgproto3.AuthenticationSASLFinal:
						return
					}
					t.Fatalf("message %d: msgReader failed (%v), Frontend read %T", i, merr, want)
				}
				if merr == nil {
					t.Fatalf("message %d: Frontend failed (%v), msgReader read %T", i, ferr, got)
				}
				return
			}
			// Compared as values: Encode writes an ErrorResponse's unknown
			// fields in map order.
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("message %d: msgReader %#v, Frontend %#v", i, got, want)
			}
		}
	})
}

// TestMsgReaderGrows: the buffer stays small while the replies fit it and
// grows to msgBufSize at the first read that fills it, the messages intact.
func TestMsgReaderGrows(t *testing.T) {
	msg, err := (&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")}).Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		count int
		want  int
	}{{10, msgBufStart}, {2 * msgBufStart / len(msg), msgBufSize}} {
		m := newMsgReader(bytes.NewReader(bytes.Repeat(msg, tc.count)))
		for i := range tc.count {
			got, err := m.next(false)
			cc, ok := got.(*pgproto3.CommandComplete)
			if err != nil || !ok || string(cc.CommandTag) != "SELECT 1" {
				t.Fatalf("%d messages: message %d: %v %v", tc.count, i, got, err)
			}
		}
		if len(m.buf) != tc.want {
			t.Errorf("%d messages of %d bytes: buffer of %d bytes, want %d", tc.count, len(msg), len(m.buf), tc.want)
		}
	}
}
