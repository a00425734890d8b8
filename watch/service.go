package watch

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ben10ctx/ben10/store"
)

// Service unit names.
const (
	SystemdUnitName = "ben10-watch.service"
	LaunchdLabel    = "dev.ben10.watch"
)

// ErrPlatform reports a platform without a service manager Ben10 knows.
var ErrPlatform = errors.New("watch: no service manager for this platform (linux: systemd, darwin: launchd)")

// Platform is runtime.GOOS normalized to "linux" or "darwin" ("" otherwise).
func Platform() string {
	switch runtime.GOOS {
	case "linux", "darwin":
		return runtime.GOOS
	}
	return ""
}

// UnitFile returns the file name and default directory of the service
// definition for platform: ~/.config/systemd/user/ben10-watch.service
// (honouring $XDG_CONFIG_HOME) or ~/Library/LaunchAgents/dev.ben10.watch.plist.
func UnitFile(platform, home string) (name, dir string, err error) {
	switch platform {
	case "linux":
		cfg := os.Getenv("XDG_CONFIG_HOME")
		if cfg == "" || !filepath.IsAbs(cfg) {
			cfg = filepath.Join(home, ".config")
		}
		return SystemdUnitName, filepath.Join(cfg, "systemd", "user"), nil
	case "darwin":
		return LaunchdLabel + ".plist", filepath.Join(home, "Library", "LaunchAgents"), nil
	}
	return "", "", fmt.Errorf("%w: %q", ErrPlatform, platform)
}

// Unit renders the service definition that runs "<binary> watch": a
// systemd user unit (restart on failure, SIGHUP on reload, SIGTERM on
// stop) or a launchd agent (run at load, restarted unless it exited
// cleanly, logs in ~/.claude-code/logs/).
func Unit(platform, binary, home string) ([]byte, error) {
	if !filepath.IsAbs(binary) {
		return nil, fmt.Errorf("watch: the service needs an absolute path to ben10, got %q", binary)
	}
	switch platform {
	case "linux":
		return []byte(`[Unit]
Description=Ben10 watcher: preserves AI coding sessions before compaction
Documentation=https://github.com/ben10ctx/ben10

[Service]
Type=simple
ExecStart=` + systemdQuote(binary) + ` watch
ExecReload=/bin/kill -HUP $MAINPID
KillSignal=SIGTERM
TimeoutStopSec=30
Restart=on-failure
RestartSec=10
Nice=10

[Install]
WantedBy=default.target
`), nil
	case "darwin":
		logs := filepath.Join(home, ".claude-code", "logs")
		return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + LaunchdLabel + `</string>
	<key>ProgramArguments</key>
	<array>
		<string>` + xmlEscape(binary) + `</string>
		<string>watch</string>
	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ProcessType</key>
	<string>Background</string>
	<key>StandardOutPath</key>
	<string>` + xmlEscape(filepath.Join(logs, "watch.log")) + `</string>
	<key>StandardErrorPath</key>
	<string>` + xmlEscape(filepath.Join(logs, "watch.error.log")) + `</string>
</dict>
</plist>
`), nil
	}
	return nil, fmt.Errorf("%w: %q", ErrPlatform, platform)
}

// systemdQuote quotes one ExecStart word: double quotes, with \ and "
// escaped, % doubled (specifier) and $ doubled (variable expansion).
func systemdQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `%`, `%%`, `$`, `$$`)
	return `"` + r.Replace(s) + `"`
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(s)
}

// Install writes the service definition into dir ("" = the platform's
// default) atomically and returns its path. For launchd it also creates
// the log directory.
func Install(platform, dir, binary, home string) (string, error) {
	p, err := unitPath(platform, dir, home)
	if err != nil {
		return "", err
	}
	data, err := Unit(platform, binary, home)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", fmt.Errorf("watch: %w", err)
	}
	if platform == "darwin" {
		if err := os.MkdirAll(filepath.Join(home, ".claude-code", "logs"), 0o700); err != nil {
			return "", fmt.Errorf("watch: %w", err)
		}
	}
	if err := store.WriteFileAtomic(p, data); err != nil {
		return "", fmt.Errorf("watch: writing %s: %w", p, err)
	}
	return p, nil
}

// Uninstall removes the service definition from dir ("" = default);
// removed is false when there was none.
func Uninstall(platform, dir, home string) (path string, removed bool, err error) {
	p, err := unitPath(platform, dir, home)
	if err != nil {
		return "", false, err
	}
	if err := os.Remove(p); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return p, false, nil
		}
		return p, false, fmt.Errorf("watch: %w", err)
	}
	return p, true, nil
}

// unitPath is the service definition's path in dir ("" = the default).
func unitPath(platform, dir, home string) (string, error) {
	name, def, err := UnitFile(platform, home)
	return filepath.Join(cmp.Or(dir, def), name), err
}

// EnableHint tells how to start (install) or stop (uninstall) the service
// whose definition is at path.
func EnableHint(platform, path string, install bool) string {
	switch {
	case platform == "linux" && install:
		return "systemctl --user daemon-reload && systemctl --user enable --now " + SystemdUnitName
	case platform == "linux":
		return "systemctl --user disable --now " + SystemdUnitName + " (before removing), then systemctl --user daemon-reload"
	case platform == "darwin" && install:
		return "launchctl load -w " + path
	case platform == "darwin":
		return "launchctl unload -w " + path + " (before removing)"
	}
	return ""
}
