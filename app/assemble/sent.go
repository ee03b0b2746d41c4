package assemble

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"time"

	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/store"
)

// AnswerSent is what one answer sent to its model server, as the window
// and `loupe chat show --sent` show it.
type AnswerSent struct {
	MessageID string `json:"messageId"`
	// Known is false for an answer from before Loupe kept an outbox.
	Known bool   `json:"known"`
	Level string `json:"level"`
	// Describe says what the level sends (privacy.Level.Describe).
	Describe string `json:"describe"`
	Server   string `json:"server"` // the model server's host
	// Local says the server is on this machine: nothing left it.
	Local    bool          `json:"local"`
	Requests []SentRequest `json:"requests"`
	Bytes    int           `json:"bytes"` // the requests' bodies in all
	// Summary says it in one line (see Summary).
	Summary string `json:"summary"`
}

// SentRequest is one request of an answer.
type SentRequest struct {
	At     time.Time `json:"at"`
	Method string    `json:"method"`
	URL    string    `json:"url"`
	Size   int       `json:"size"`
	// Body is the body as sent (empty when Dropped); Pretty the same
	// indented when it is JSON.
	Body    string `json:"body"`
	Pretty  string `json:"pretty"`
	Dropped bool   `json:"dropped,omitempty"`
}

// SentOf reads what the answer messageID sent from st.
func SentOf(ctx context.Context, st *store.Store, messageID string) (*AnswerSent, error) {
	a, known, err := st.AnswerPrivacyOf(ctx, messageID)
	if err != nil {
		return nil, err
	}
	reqs, err := st.SentFor(ctx, messageID)
	if err != nil {
		return nil, err
	}
	out := &AnswerSent{MessageID: messageID, Known: known, Level: a.Level, Describe: privacy.Level(a.Level).Describe(),
		Server: hostOf(a.ModelURL), Local: a.Local, Requests: []SentRequest{}}
	for _, r := range reqs {
		out.Requests = append(out.Requests, SentRequest{At: r.At, Method: r.Method, URL: r.URL, Size: r.Size,
			Body: string(r.Body), Pretty: Pretty(r.Body), Dropped: r.Dropped})
		out.Bytes += r.Size
	}
	out.Summary = out.summary()
	return out, nil
}

// summary is the answer's one-line account: where it went, at what level.
func (a *AnswerSent) summary() string {
	switch {
	case !a.Known:
		return "Asked before Loupe kept a record of what is sent."
	case a.Local && len(a.Requests) == 0:
		return "Nothing left this machine: the model runs on " + a.Server + "."
	}
	return "Sent to " + a.Server + " at privacy level " + a.Level + ": " + a.Describe + "."
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	return u.Host
}

// Pretty is b indented when it is JSON, else b as it is.
func Pretty(b []byte) string {
	var buf bytes.Buffer
	if json.Indent(&buf, b, "", "  ") != nil {
		return string(b)
	}
	return buf.String()
}
