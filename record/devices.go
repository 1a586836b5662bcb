package record

import (
	"fmt"
	"strings"
)

// listed is one line of adb devices -l: a serial, its state (device,
// unauthorized, offline, "no permissions (…)"…) and its model when adb
// knows it.
type listed struct {
	serial, state, model string
}

// String names the device as the messages do: its serial, and its state
// when it is not ready.
func (d listed) String() string {
	if d.state == "device" {
		return d.serial
	}
	return d.serial + " (" + d.state + ")"
}

// parseDevices reads adb devices -l: a header line, then one line per
// device, "SERIAL STATE key:value…" with the fields separated by spaces
// or a tab. A state of several words ("no permissions (…); see […]") runs
// up to the first key:value field. Lines of the adb server starting up
// ("* daemon started successfully") are skipped.
func parseDevices(out string) []listed {
	var ds []listed
	for _, line := range lines(out) {
		if strings.HasPrefix(line, "*") || strings.HasPrefix(line, "List of devices") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		d := listed{serial: f[0]}
		var state []string
		for i, w := range f[1:] {
			if i > 0 && isKeyValue(w) {
				for _, kv := range f[1+i:] {
					if v, ok := strings.CutPrefix(kv, "model:"); ok {
						d.model = v
					}
				}
				break
			}
			state = append(state, w)
		}
		d.state = strings.Join(state, " ")
		ds = append(ds, d)
	}
	return ds
}

// isKeyValue reports whether w is a key:value field of adb devices -l
// (product:…, model:…, usb:…, transport_id:…).
func isKeyValue(w string) bool {
	k, _, ok := strings.Cut(w, ":")
	if !ok || k == "" {
		return false
	}
	for _, c := range k {
		if (c < 'a' || c > 'z') && c != '_' {
			return false
		}
	}
	return true
}

// chooseDevice picks the device to record on: serial when given (-s or
// ANDROID_SERIAL), else the only device listed. Each way this can fail is
// one line that says what to do.
func chooseDevice(ds []listed, serial string) (listed, error) {
	if serial != "" {
		for _, d := range ds {
			if d.serial == serial {
				return d, usable(d)
			}
		}
		if len(ds) == 0 {
			return listed{}, fmt.Errorf("device %s not found: adb devices lists none; connect it with USB debugging on, or start the emulator", serial)
		}
		return listed{}, fmt.Errorf("device %s not found: adb devices lists %s; check -s or ANDROID_SERIAL", serial, listDevices(ds))
	}
	switch len(ds) {
	case 0:
		return listed{}, fmt.Errorf("no device: adb devices lists none; connect a device with USB debugging on, or start an emulator")
	case 1:
		return ds[0], usable(ds[0])
	}
	return listed{}, fmt.Errorf("%d devices: %s; choose one with -s SERIAL or ANDROID_SERIAL", len(ds), listDevices(ds))
}

// listDevices names the devices in a message.
func listDevices(ds []listed) string {
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.String()
	}
	return strings.Join(names, ", ")
}

// usable refuses a device that adb lists but cannot use yet.
func usable(d listed) error {
	switch {
	case d.state == "device":
		return nil
	case d.state == "unauthorized":
		return fmt.Errorf("device %s is unauthorized: unlock it and accept its \"Allow USB debugging?\" prompt, then record again", d.serial)
	case d.state == "authorizing" || d.state == "connecting":
		return fmt.Errorf("device %s is %s: wait a moment (adb wait-for-device), then record again", d.serial, d.state)
	case d.state == "offline":
		return fmt.Errorf("device %s is offline: reconnect it (adb reconnect offline, or unplug it), then record again", d.serial)
	case strings.HasPrefix(d.state, "no permissions"):
		return fmt.Errorf("device %s: adb has no permission to use it%s: fix the USB permissions, then record again", d.serial, strings.TrimPrefix(d.state, "no permissions"))
	}
	return fmt.Errorf("device %s is in %s mode: boot it into Android, then record again", d.serial, d.state)
}
