package pprofweb

import (
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// pages are the pprof UI's pages that read nothing but the profile. Any
// other path, including one a later pprof adds, is not served.
var pages = map[string]bool{
	"/": true, "/graph": true, "/top": true, "/peek": true, "/flamegraph": true,
	"/download": true, "/flamegraph2": true, "/flamegraphold": true,
}

// Answers to the pages that are not served.
const (
	noSourceView = "atrace2 serves no source view unless started with --source-path DIR: it never reads the files a profile names"
	noDisasm     = "atrace2 serves no disassembly: the methods of a trace have no machine code"
	noSettings   = "atrace2 does not save or delete pprof settings"
)

// hostCheck accepts the Host headers that name the served address, which a
// page of another site cannot send, even through DNS rebinding: its own
// host name is in the header.
type hostCheck struct {
	port  string
	names map[string]bool     // lower case
	addrs map[netip.Addr]bool // unmapped, without zone
}

// newHostCheck accepts localhost, 127.0.0.1, [::1] and the host the server
// was given, each with the served port; a server on every interface (such
// as 0.0.0.0) also accepts the machine's host name and addresses.
func newHostCheck(given string, tcp *net.TCPAddr) hostCheck {
	h := hostCheck{
		port:  strconv.Itoa(tcp.Port),
		names: map[string]bool{"localhost": true},
		addrs: map[netip.Addr]bool{netip.MustParseAddr("127.0.0.1"): true, netip.IPv6Loopback(): true},
	}
	h.add(given)
	if tcp.IP.IsUnspecified() {
		if name, err := os.Hostname(); err == nil {
			h.add(name)
		}
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if n, ok := a.(*net.IPNet); ok {
					h.add(n.IP.String())
				}
			}
		}
	}
	return h
}

func (h hostCheck) add(host string) {
	if a, err := netip.ParseAddr(host); err == nil {
		h.addrs[a.Unmap().WithZone("")] = true
	} else if host != "" {
		h.names[strings.ToLower(host)] = true
	}
}

// allows reports whether a request's Host header names the server.
func (h hostCheck) allows(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil { // no port: the scheme's
		host, port = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), "80"
	}
	if port != h.port {
		return false
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return h.addrs[a.Unmap().WithZone("")]
	}
	return h.names[strings.ToLower(host)]
}

// guard is what the server does before pprof's handlers: it answers local
// clients only when it listens on a loopback address, only requests whose
// Host header names it, and only GET and HEAD, so that no request changes
// anything.
func guard(next http.Handler, hosts hostCheck, loopback bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if loopback {
			host, _, err := net.SplitHostPort(req.RemoteAddr)
			if err != nil || !isLoopback(host) {
				http.Error(w, "permission denied", http.StatusForbidden)
				return
			}
		}
		if !hosts.allows(req.Host) {
			http.Error(w, "misdirected request: this server does not answer for host "+strconv.Quote(req.Host), http.StatusMisdirectedRequest)
			return
		}
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed: the UI only reads", http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, req)
	})
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
