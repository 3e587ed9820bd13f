package livemetrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Server serves /metrics of a registry on one address.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan struct{}
	// URL is where /metrics is served (the real port when the address
	// said 0).
	URL string
	// Remote says the address is not a loopback one (allowed by
	// allowRemote): the caller warns.
	Remote bool
}

// resolveTimeout bounds the look-up of a host name in the address.
const resolveTimeout = 5 * time.Second

// Serve listens on addr (host:port) and serves g's metrics at /metrics until
// Close. An address that is not loopback only (a host that is not a loopback
// IP or does not resolve to loopback IPs only; an empty host, every
// interface) is refused unless allowRemote: the metrics name the run and its
// scripts, and an exporter listening beyond the machine is a choice to make
// on purpose.
func Serve(addr string, allowRemote bool, g prometheus.Gatherer) (*Server, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %q: want HOST:PORT, such as 127.0.0.1:9187 or localhost:0 (a free port): %w", addr, err)
	}
	remote, why, err := isRemote(host)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %q: %w", addr, err)
	}
	if remote && !allowRemote {
		return nil, fmt.Errorf("--metrics-addr %q would serve the run's metrics beyond this machine (%s); "+
			"use a loopback address such as 127.0.0.1:%s, or add --metrics-allow-remote to serve them there on purpose", addr, why, port)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %q: %w", addr, err)
	}
	tcp, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		ln.Close()
		return nil, fmt.Errorf("--metrics-addr %q: not a TCP address", addr)
	}
	if !remote && !tcp.IP.IsLoopback() {
		// The name resolved to loopback before and to something else now.
		ln.Close()
		return nil, fmt.Errorf("--metrics-addr %q listened on %s, which is not a loopback address; add --metrics-allow-remote to allow it", addr, tcp)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{
		EnableOpenMetrics: true,
		ErrorHandling:     promhttp.ContinueOnError,
		Timeout:           10 * time.Second,
	}))
	s := &Server{
		srv:    &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		ln:     ln,
		done:   make(chan struct{}),
		URL:    "http://" + urlHost(host, tcp) + "/metrics",
		Remote: remote,
	}
	go func() {
		defer close(s.done)
		s.srv.Serve(ln) // ends with Close: http.ErrServerClosed
	}()
	return s, nil
}

// urlHost is the address of the URL: the host as given (a name, an IP)
// with the real port, or the listener's address for an empty host.
func urlHost(host string, tcp *net.TCPAddr) string {
	if host == "" {
		host = tcp.IP.String()
	}
	return net.JoinHostPort(host, fmt.Sprint(tcp.Port))
}

// isRemote says whether host reaches beyond loopback, and why.
func isRemote(host string) (bool, string, error) {
	if host == "" {
		return true, "an empty host listens on every interface", nil
	}
	if ip := net.ParseIP(strings.SplitN(host, "%", 2)[0]); ip != nil {
		if ip.IsLoopback() {
			return false, "", nil
		}
		if ip.IsUnspecified() {
			return true, host + " listens on every interface", nil
		}
		return true, host + " is not a loopback address", nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return false, "", fmt.Errorf("look up %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return false, "", errors.New("look up " + host + ": no address")
	}
	for _, a := range addrs {
		if !a.IP.IsLoopback() {
			return true, fmt.Sprintf("%s resolves to %s, which is not a loopback address", host, a.IP), nil
		}
	}
	return false, "", nil
}

// Close stops serving: a scrape in flight gets up to 2 s to finish.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	<-s.done
	return err
}
