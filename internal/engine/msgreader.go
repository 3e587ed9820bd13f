package engine

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgproto3"
)

// msgReader reads backend messages from a connection into one buffer and
// decodes them into reused pgproto3 structs: pgproto3.Frontend.Receive
// without its chunk reader's layers (io.ReadAtLeast, a Next call for the
// header and another for the body), and without decoding what the engine
// only counts. A select-only reply is five messages read by one recvfrom;
// this is the client's per-transaction parsing.
//
// A message and the byte slices in it are valid until the next call, as
// with Frontend.Receive.
type msgReader struct {
	rd   io.Reader
	buf  []byte // unread bytes are buf[r:w]
	r, w int
	// maxBody limits a message's body (bytes); 0: no limit, as in libpq,
	// whose only bound is the server's 1 GB per value.
	maxBody int

	parseComplete        pgproto3.ParseComplete
	bindComplete         pgproto3.BindComplete
	closeComplete        pgproto3.CloseComplete
	notificationResponse pgproto3.NotificationResponse
	copyDone             pgproto3.CopyDone
	commandComplete      pgproto3.CommandComplete
	copyData             pgproto3.CopyData
	dataRow              pgproto3.DataRow
	errorResponse        pgproto3.ErrorResponse
	copyInResponse       pgproto3.CopyInResponse
	copyOutResponse      pgproto3.CopyOutResponse
	copyBothResponse     pgproto3.CopyBothResponse
	emptyQueryResponse   pgproto3.EmptyQueryResponse
	noData               pgproto3.NoData
	noticeResponse       pgproto3.NoticeResponse
	portalSuspended      pgproto3.PortalSuspended
	parameterStatus      pgproto3.ParameterStatus
	parameterDescription pgproto3.ParameterDescription
	rowDescription       pgproto3.RowDescription
	readyForQuery        pgproto3.ReadyForQuery
}

// msgBufSize is the reader's buffer: pgproto3's is 8 KiB, libpq's 16 KiB.
// It starts at msgBufStart and grows to msgBufSize at the first read that
// fills it (the server had more to send than fitted): a client whose
// replies are small (a short transaction, then a think time) keeps 4 KiB,
// which at 2,000 clients is 24 MB less than 16 KiB each. A bigger message
// grows it further; a buffer grown beyond msgBufKeep is dropped once it is
// empty, so one huge row does not stay with the client.
const (
	msgBufStart = 4 << 10
	msgBufSize  = 16 << 10
	msgBufKeep  = 1 << 20
)

func newMsgReader(rd io.Reader) *msgReader {
	return &msgReader{rd: rd, buf: make([]byte, msgBufStart)}
}

// fill reads until at least n bytes are unread, moving them to the front
// of the buffer (or into a bigger one) when they do not fit after r.
func (m *msgReader) fill(n int) error {
	if m.r+n > len(m.buf) {
		if n > len(m.buf) {
			nb := make([]byte, max(n, 2*len(m.buf)))
			m.w = copy(nb, m.buf[m.r:m.w])
			m.buf = nb
		} else {
			m.w = copy(m.buf, m.buf[m.r:m.w])
		}
		m.r = 0
	}
	for m.w-m.r < n {
		k, err := m.rd.Read(m.buf[m.w:])
		m.w += k
		if m.w == len(m.buf) && len(m.buf) < msgBufSize {
			// The read filled the small buffer: the server sends more at
			// once than it holds.
			nb := make([]byte, msgBufSize)
			m.w = copy(nb, m.buf[m.r:m.w])
			m.buf, m.r = nb, 0
		}
		if err != nil {
			if m.w-m.r >= n {
				return nil
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// next returns the next message. With rows false, RowDescription and
// DataRow are returned without being decoded (their fields are left from an
// earlier message): for callers that only count them.
func (m *msgReader) next(rows bool) (pgproto3.BackendMessage, error) {
	if m.r == m.w && len(m.buf) > msgBufKeep {
		m.buf, m.r, m.w = make([]byte, msgBufSize), 0, 0
	}
	if m.w-m.r < 5 {
		if err := m.fill(5); err != nil {
			return nil, err
		}
	}
	typ := m.buf[m.r]
	n := int(int32(binary.BigEndian.Uint32(m.buf[m.r+1:])))
	if n < 4 {
		return nil, fmt.Errorf("invalid message length: %d", n)
	}
	if m.maxBody > 0 && n-4 > m.maxBody {
		return nil, fmt.Errorf("message of %d bytes exceeds the limit of %d", n-4, m.maxBody)
	}
	if m.w-m.r < 1+n {
		if err := m.fill(1 + n); err != nil {
			return nil, err
		}
	}
	body := m.buf[m.r+5 : m.r+1+n]
	m.r += 1 + n
	if m.r == m.w {
		m.r, m.w = 0, 0
	}

	var msg pgproto3.BackendMessage
	switch typ {
	case '1':
		msg = &m.parseComplete
	case '2':
		msg = &m.bindComplete
	case '3':
		msg = &m.closeComplete
	case 'A':
		msg = &m.notificationResponse
	case 'c':
		msg = &m.copyDone
	case 'C':
		msg = &m.commandComplete
	case 'd':
		msg = &m.copyData
	case 'D':
		msg = &m.dataRow
	case 'E':
		msg = &m.errorResponse
	case 'G':
		msg = &m.copyInResponse
	case 'H':
		msg = &m.copyOutResponse
	case 'I':
		msg = &m.emptyQueryResponse
	case 'n':
		msg = &m.noData
	case 'N':
		msg = &m.noticeResponse
	case 's':
		msg = &m.portalSuspended
	case 'S':
		msg = &m.parameterStatus
	case 't':
		msg = &m.parameterDescription
	case 'T':
		msg = &m.rowDescription
	case 'W':
		msg = &m.copyBothResponse
	case 'Z':
		msg = &m.readyForQuery
	default:
		return nil, fmt.Errorf("unknown message type: %q", typ)
	}
	if !rows && (typ == 'D' || typ == 'T') {
		return msg, nil // only counted: left undecoded
	}
	if err := msg.Decode(body); err != nil {
		return nil, err
	}
	return msg, nil
}
