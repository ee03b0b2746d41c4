package web

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"path"
	"strings"

	"github.com/loupeapp/loupe/app"
)

// maxBody bounds a call's arguments.
const maxBody = 8 << 20

// Handler serves a over HTTP: the API under /api/, the events of hub at
// /api/events, and assets (the built frontend; nil serves none) elsewhere.
// It answers only requests addressed to a loopback host; API calls and the
// event stream must carry o.Token and come from the server's own origin
// or one of o.AllowOrigins (or from no page at all), so that neither a web
// page the user visits nor another local program without the token can
// drive it.
func Handler(a *app.App, hub *Hub, assets fs.FS, o Options) (http.Handler, error) {
	g, err := newGate(o)
	if err != nil {
		return nil, err
	}
	ms, err := methods(a)
	if err != nil {
		return nil, err
	}
	log := slog.Default().With("subsystem", "web")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/events", hub.serveEvents)
	mux.HandleFunc("GET /api/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"methods": names(ms)})
	})
	mux.HandleFunc("POST /api/{method}", func(w http.ResponseWriter, r *http.Request) {
		m, ok := ms[r.PathValue("method")]
		if !ok {
			writeError(w, &app.Error{Code: app.CodeNotFound, Message: "No API method " + r.PathValue("method") + "."})
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			writeError(w, &app.Error{Code: app.CodeInvalid, Message: "Cannot read the request: " + err.Error()})
			return
		}
		res, err := m.call(body)
		if err != nil {
			e := app.AsError(err)
			if e.Code == app.CodeInternal {
				log.Error("call failed", "method", m.name, "err", e.Err)
			}
			writeError(w, e)
			return
		}
		writeJSON(w, http.StatusOK, res)
	})
	mux.Handle("/", frontend(assets))
	return g.guard(mux), nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, &app.Error{Code: app.CodeInternal, Message: "Cannot encode the result: " + err.Error()})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, e *app.Error) {
	b, _ := json.Marshal(e)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(statusOf(e.Code))
	_, _ = w.Write(b)
}

// frontend serves the built single-page app: a file when it exists, else
// index.html (client-side routes).
func frontend(assets fs.FS) http.Handler {
	if assets == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "loupe serve: no frontend to serve (build it with npm --prefix frontend run build, or pass --assets DIR)", http.StatusNotFound)
		})
	}
	files := http.FileServerFS(assets)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if p != "" {
			if st, err := fs.Stat(assets, p); err == nil && !st.IsDir() {
				files.ServeHTTP(w, r)
				return
			}
		}
		index, err := fs.ReadFile(assets, "index.html")
		if err != nil {
			http.Error(w, "loupe serve: the frontend is not built (no index.html): run npm --prefix frontend run build, or pass --assets DIR", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(index)
	})
}

// IsLoopbackHost reports whether hostport (host or host:port) names this
// machine: localhost or a loopback IP.
func IsLoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ErrNotLoopback is returned by Listen for an address off this machine.
var ErrNotLoopback = errors.New("web mode listens on loopback only (127.0.0.1, ::1 or localhost)")

// Listen listens on addr, which must be a loopback address.
func Listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if host == "" || !IsLoopbackHost(host) {
		return nil, ErrNotLoopback
	}
	return net.Listen("tcp", addr)
}
