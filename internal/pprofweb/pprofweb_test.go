package pprofweb

import (
	"errors"
	"net"
	"testing"
)

// TestListen: an empty host is localhost, port 0 picks a free port, and an
// address that is not HOST:PORT is an AddrError (a usage error).
func TestListen(t *testing.T) {
	l, err := Listen(":0")
	if err != nil {
		t.Skipf("cannot listen here: %v", err)
	}
	defer l.Close()
	if l.host != "localhost" {
		t.Errorf("host %q, want localhost", l.host)
	}
	if tcp, ok := l.ln.Addr().(*net.TCPAddr); !ok || tcp.Port == 0 {
		t.Errorf("address %v: no port picked", l.ln.Addr())
	}
	_, err = Listen("nope")
	var ae *AddrError
	if !errors.As(err, &ae) || err.Error() != "--http nope: want HOST:PORT, such as :0 or 127.0.0.1:8080: address nope: missing port in address" {
		t.Errorf("Listen(nope) = %v, want an AddrError", err)
	}
}
