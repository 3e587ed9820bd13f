package metrics

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"math"
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The V2 encoding's cookies (hdrhistogram-go's encodingCookie and
// compressedEncodingCookie).
const (
	v2Cookie           int32 = 0x1c849303 | 0x10
	v2CompressedCookie int32 = 0x1c849304 | 0x10
)

// encoder is hdrhistogram-go's EncodeV2 and Max for a histogram of
// NewHistogram's geometry, byte for byte, from its counts in one pass (the
// library's Max and its encoder each walk the 23,552 counts with an
// iterator, and it makes a zlib writer for every histogram; together
// ~0.7 ms). The zlib writer is reused. Other histograms go to the library.
type encoder struct {
	raw, comp, out bytes.Buffer
	zw             *zlib.Writer
}

var encoders = sync.Pool{New: func() any { return &encoder{} }}

// encodeV2 returns h.EncodeV2() and h.Max().
func encodeV2(h *hdrhistogram.Histogram) (payload []byte, maxV int64, err error) {
	s := h.Export()
	if s.LowestTrackableValue != HistLowest || s.HighestTrackableValue != HistHighest || s.SignificantFigures != HistSigFigs || len(s.Counts) != numBuckets {
		p, err := h.EncodeV2()
		return p, h.Max(), err
	}
	last := -1
	for i := len(s.Counts) - 1; i >= 0; i-- {
		if s.Counts[i] != 0 {
			last = i
			break
		}
	}
	if last >= 0 {
		b := max(int32(last)>>subBucketHalfMagnitude-1, 0)
		maxV = bucketValue(int32(last)) + 1<<b - 1 // the bucket's highest equivalent value
	}
	e := encoders.Get().(*encoder)
	defer encoders.Put(e)

	// The counts up to the maximum's (at least one), zigzag LEB128, a run
	// of more than one zero as its negated length.
	var counts []byte
	limit := max(last+1, 1)
	for i := 0; i < limit; {
		c := s.Counts[i]
		i++
		if c == 0 {
			zeros := int64(1)
			for i < limit && s.Counts[i] == 0 {
				zeros++
				i++
			}
			if zeros > 1 {
				c = -zeros
			}
		}
		z := uint64((c << 1) ^ (c >> 63))
		if z>>56 != 0 { // the 9-byte form differs from a varint: the library's
			p, err := h.EncodeV2()
			return p, maxV, err
		}
		counts = binary.AppendUvarint(counts, z)
	}
	ratio := s.IntegerToDoubleConversionRatio
	if ratio == 0 {
		ratio = 1
	}
	e.raw.Reset()
	var hdr [40]byte
	binary.BigEndian.PutUint32(hdr[0:], uint32(v2Cookie))
	binary.BigEndian.PutUint32(hdr[4:], uint32(len(counts)))
	binary.BigEndian.PutUint32(hdr[8:], 0) // normalizing index offset
	binary.BigEndian.PutUint32(hdr[12:], uint32(s.SignificantFigures))
	binary.BigEndian.PutUint64(hdr[16:], uint64(s.LowestTrackableValue))
	binary.BigEndian.PutUint64(hdr[24:], uint64(s.HighestTrackableValue))
	binary.BigEndian.PutUint64(hdr[32:], math.Float64bits(ratio))
	e.raw.Write(hdr[:])
	e.raw.Write(counts)

	e.comp.Reset()
	if e.zw == nil {
		if e.zw, err = zlib.NewWriterLevel(&e.comp, zlib.BestCompression); err != nil {
			return nil, 0, err
		}
	} else {
		e.zw.Reset(&e.comp)
	}
	if _, err := e.zw.Write(e.raw.Bytes()); err != nil {
		return nil, 0, err
	}
	if err := e.zw.Close(); err != nil {
		return nil, 0, err
	}
	e.out.Reset()
	var pre [8]byte
	binary.BigEndian.PutUint32(pre[0:], uint32(v2CompressedCookie))
	binary.BigEndian.PutUint32(pre[4:], uint32(e.comp.Len()))
	e.out.Write(pre[:])
	e.out.Write(e.comp.Bytes())
	payload = make([]byte, base64.StdEncoding.EncodedLen(e.out.Len()))
	base64.StdEncoding.Encode(payload, e.out.Bytes())
	return payload, maxV, nil
}
