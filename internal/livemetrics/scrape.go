package livemetrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// Scrape reads url once, as a Prometheus server with native histograms
// does (the protobuf format; text: the text format, as an older one), and
// returns the metric families by name. For tests and checks.
func Scrape(ctx context.Context, url string, text bool) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	accept := expfmt.NewFormat(expfmt.TypeProtoDelim)
	if text {
		accept = expfmt.NewFormat(expfmt.TypeTextPlain)
	}
	req.Header.Set("Accept", string(accept))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: %s", url, resp.Status)
	}
	dec := expfmt.NewDecoder(resp.Body, expfmt.ResponseFormat(resp.Header))
	fams := map[string]*dto.MetricFamily{}
	for range 10_000 {
		f := &dto.MetricFamily{}
		if err := dec.Decode(f); err != nil {
			if errors.Is(err, io.EOF) {
				return fams, nil
			}
			return nil, fmt.Errorf("scrape %s: %w", url, err)
		}
		fams[f.GetName()] = f
	}
	return nil, fmt.Errorf("scrape %s: more than 10,000 metric families", url)
}

// Total is the sum over a family's series of their values: a counter's or
// a gauge's value, a histogram's count; 0 for a missing family.
func Total(f *dto.MetricFamily) float64 {
	if f == nil {
		return 0
	}
	var sum float64
	for _, m := range f.GetMetric() {
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		case m.Untyped != nil:
			sum += m.Untyped.GetValue()
		}
	}
	return sum
}
