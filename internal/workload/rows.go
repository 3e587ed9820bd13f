package workload

import (
	"encoding/binary"
	"fmt"
)

// CopyFormat is the COPY data format a Rows generator writes.
type CopyFormat int

const (
	// CopyText is COPY's text format, byte for byte what pgbench sends.
	CopyText CopyFormat = iota
	// CopyBinary is COPY's binary format: fixed-width integers, no parsing on the server.
	CopyBinary
)

func (f CopyFormat) String() string {
	if f == CopyBinary {
		return "binary"
	}
	return "text"
}

// CopyOption is the format part of a COPY ... WITH (...) clause.
func (f CopyFormat) CopyOption() string {
	if f == CopyBinary {
		return "format binary"
	}
	return "format text"
}

// MaxRowBytes bounds one generated row in either format: the text accounts row is at
// most 3 numbers of ≤ 20 digits + 4 separators; the binary one is 2 + 4×4 + 8+4+4 bytes.
const MaxRowBytes = 80

// BinaryHeader is COPY BINARY's file header: signature, flags 0, header extension 0.
var BinaryHeader = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// BinaryTrailer is COPY BINARY's end marker: a field count of −1.
var BinaryTrailer = []byte{0xff, 0xff}

// Rows generates the rows of one pgbench table for keys k in [next, end) (0-based; the
// key column is k+1), pgbench's values:
//
//	branches  k+1  0      NULL            (bid, bbalance, filler)
//	tellers   k+1  k/10+1 0     NULL      (tid, bid, tbalance, filler)
//	accounts  k+1  k/100000+1 0 ''        (aid, bid, abalance, filler: '' padded to char(84))
//
// It writes into a caller's buffer and allocates nothing per row.
type Rows struct {
	table  string
	format CopyFormat
	bigAid bool
	next   int64
	end    int64
}

// NewRows returns a generator of table's rows for keys [first, end) in format. bigAid
// makes the accounts key an 8-byte integer in binary format (scale ≥ 20000).
func NewRows(table string, format CopyFormat, first, end int64, bigAid bool) (*Rows, error) {
	switch table {
	case Branches, Tellers, Accounts:
	default:
		return nil, fmt.Errorf("no row generator for table %q", table)
	}
	if first < 0 || end < first {
		return nil, fmt.Errorf("bad key range [%d, %d) for %s", first, end, table)
	}
	return &Rows{table: table, format: format, bigAid: bigAid, next: first, end: end}, nil
}

// Remaining is the number of rows not generated yet.
func (r *Rows) Remaining() int64 { return r.end - r.next }

// Fill appends whole rows to buf while at least MaxRowBytes of capacity is left, and
// returns the extended buffer and the number of rows appended. It never grows buf.
func (r *Rows) Fill(buf []byte) ([]byte, int) {
	start := r.next
	// Rows that surely fit: ⌊free / MaxRowBytes⌋, at most what is left.
	n := min(int64((cap(buf)-len(buf))/MaxRowBytes), r.end-r.next)
	stop := r.next + n
	switch {
	case r.table == Accounts && r.format == CopyText:
		for k := r.next; k < stop; k++ {
			buf = appendUint(buf, uint64(k+1))
			buf = append(buf, '\t')
			buf = appendUint(buf, uint64(k/AccountsPerScale+1))
			buf = append(buf, "\t0\t\n"...)
		}
	case r.table == Accounts:
		for k := r.next; k < stop; k++ {
			buf = binary.BigEndian.AppendUint16(buf, 4)
			if r.bigAid {
				buf = binary.BigEndian.AppendUint32(buf, 8)
				buf = binary.BigEndian.AppendUint64(buf, uint64(k+1))
			} else {
				buf = binary.BigEndian.AppendUint32(buf, 4)
				buf = binary.BigEndian.AppendUint32(buf, uint32(k+1))
			}
			buf = binary.BigEndian.AppendUint32(buf, 4)
			buf = binary.BigEndian.AppendUint32(buf, uint32(k/AccountsPerScale+1))
			// abalance = 0 (length 4, value 0), filler = '' (length 0).
			buf = append(buf, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0)
		}
	case r.table == Tellers && r.format == CopyText:
		for k := r.next; k < stop; k++ {
			buf = appendUint(buf, uint64(k+1))
			buf = append(buf, '\t')
			buf = appendUint(buf, uint64(k/TellersPerScale+1))
			buf = append(buf, "\t0\t\\N\n"...)
		}
	case r.table == Tellers:
		for k := r.next; k < stop; k++ {
			buf = binary.BigEndian.AppendUint16(buf, 4)
			buf = binary.BigEndian.AppendUint32(buf, 4)
			buf = binary.BigEndian.AppendUint32(buf, uint32(k+1))
			buf = binary.BigEndian.AppendUint32(buf, 4)
			buf = binary.BigEndian.AppendUint32(buf, uint32(k/TellersPerScale+1))
			// tbalance = 0, filler = NULL (length −1).
			buf = append(buf, 0, 0, 0, 4, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff)
		}
	case r.table == Branches && r.format == CopyText:
		for k := r.next; k < stop; k++ {
			buf = appendUint(buf, uint64(k+1))
			buf = append(buf, "\t0\t\\N\n"...)
		}
	default: // branches, binary
		for k := r.next; k < stop; k++ {
			buf = binary.BigEndian.AppendUint16(buf, 3)
			buf = binary.BigEndian.AppendUint32(buf, 4)
			buf = binary.BigEndian.AppendUint32(buf, uint32(k+1))
			buf = append(buf, 0, 0, 0, 4, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff)
		}
	}
	r.next = stop
	return buf, int(stop - start)
}

// digitPairs holds "00".."99": formatting two digits per division halves the divisions.
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// appendUint appends v in decimal. The caller guarantees 20 bytes of capacity, so the
// append never reallocates.
func appendUint(buf []byte, v uint64) []byte {
	var tmp [20]byte
	i := len(tmp)
	for v >= 100 {
		q := v / 100
		d := (v - q*100) * 2
		i -= 2
		tmp[i], tmp[i+1] = digitPairs[d], digitPairs[d+1]
		v = q
	}
	if v >= 10 {
		d := v * 2
		i -= 2
		tmp[i], tmp[i+1] = digitPairs[d], digitPairs[d+1]
	} else {
		i--
		tmp[i] = byte('0' + v)
	}
	return append(buf, tmp[i:]...)
}
