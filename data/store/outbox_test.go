package store

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

func sent(conv, msg string, body string) Sent {
	return Sent{ConversationID: conv, MessageID: msg, At: time.Now(), Method: "POST",
		URL: "https://api.example.com/v1/chat/completions", Level: "masked", Body: []byte(body)}
}

// The outbox keeps bodies byte for byte with their answer, and goes with
// the conversation.
func TestOutboxKeepsBodiesWithTheirAnswer(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	conv := conversation(t, s)
	p, _ := ask(t, s, conv, "Revenue by region?", "run_1")
	body := "{\"messages\":[{\"role\":\"user\",\"content\":\"Revenue by region? \\u00e9\\n\"}]}\x00\xff"
	must(t, s.KeepSent(ctx, sent(conv, p.Assistant.ID, body)))
	must(t, s.KeepSent(ctx, Sent{At: time.Now(), Method: "GET", URL: "https://api.example.com/v1/models"}))
	must(t, s.SetAnswerPrivacy(ctx, AnswerPrivacy{MessageID: p.Assistant.ID, Level: "masked", ModelURL: "https://api.example.com/v1"}))

	got, err := s.SentFor(ctx, p.Assistant.ID)
	must(t, err)
	if len(got) != 1 || !bytes.Equal(got[0].Body, []byte(body)) || got[0].Size != len(body) || got[0].ConversationID != conv || got[0].Level != "masked" {
		t.Fatalf("kept %+v", got)
	}
	loose, err := s.SentLoose(ctx)
	must(t, err)
	if len(loose) != 1 || loose[0].Method != "GET" || loose[0].Body != nil {
		t.Fatalf("loose %+v", loose)
	}
	a, ok, err := s.AnswerPrivacyOf(ctx, p.Assistant.ID)
	must(t, err)
	if !ok || a.Level != "masked" || a.ModelURL != "https://api.example.com/v1" || a.Local {
		t.Errorf("privacy %+v %v", a, ok)
	}

	must(t, s.Delete(ctx, conv))
	var n int
	must(t, s.db.QueryRow(`SELECT count(*) FROM outbox WHERE conversation_id IS NOT NULL`).Scan(&n))
	if n != 0 {
		t.Errorf("%d requests outlived their conversation", n)
	}
	must(t, s.db.QueryRow(`SELECT count(*) FROM outbox_answers`).Scan(&n))
	if n != 0 {
		t.Errorf("%d answer records outlived their conversation", n)
	}
}

// Past the bound the oldest bodies go, newest kept, each conversation on
// its own.
func TestOutboxIsBoundedPerConversation(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	s.maxOutbox = 250
	a, b := conversation(t, s), conversation(t, s)
	pa, _ := ask(t, s, a, "q", "run_a")
	pb, _ := ask(t, s, b, "q", "run_b")
	for i := range 5 {
		must(t, s.KeepSent(ctx, sent(a, pa.Assistant.ID, fmt.Sprintf("%0100d", i))))
	}
	must(t, s.KeepSent(ctx, sent(b, pb.Assistant.ID, fmt.Sprintf("%0100d", 9))))
	got, err := s.SentFor(ctx, pa.Assistant.ID)
	must(t, err)
	var kept []int
	for i, e := range got {
		if e.Size != 100 {
			t.Errorf("request %d lost its size: %d", i, e.Size)
		}
		if !e.Dropped {
			kept = append(kept, i)
		}
	}
	if fmt.Sprint(kept) != "[3 4]" {
		t.Errorf("kept bodies %v, want the newest two", kept)
	}
	other, err := s.SentFor(ctx, pb.Assistant.ID)
	must(t, err)
	if len(other) != 1 || other[0].Dropped {
		t.Errorf("another conversation's request was dropped: %+v", other)
	}
}

// Two processes keeping requests in the same file at once lose none.
func TestOutboxConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	path := t.TempDir() + "/" + FileName
	s1, err := Open(ctx, path)
	must(t, err)
	defer s1.Close()
	s2, err := Open(ctx, path)
	must(t, err)
	defer s2.Close()
	conv := conversation(t, s1)
	p, _ := ask(t, s1, conv, "q", "run_1")
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		st := []*Store{s1, s2}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- st.KeepSent(ctx, sent(conv, p.Assistant.ID, fmt.Sprintf(`{"n":%d}`, i)))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	got, err := s2.SentFor(ctx, p.Assistant.ID)
	must(t, err)
	if len(got) != 40 {
		t.Errorf("kept %d of 40", len(got))
	}
}

func TestMigrateFromV3(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, fromFixture(t, "v3.sql"))
	must(t, err)
	defer s.Close()
	reps, err := s.Reports(ctx, "chat_00000000000000e5")
	must(t, err)
	if len(reps) != 1 {
		t.Fatalf("reports %+v", reps)
	}
	if _, ok, err := s.AnswerPrivacyOf(ctx, "msg_0000000000000e02"); err != nil || ok {
		t.Errorf("an answer from before the outbox: ok %v, err %v", ok, err)
	}
	must(t, s.KeepSent(ctx, sent("chat_00000000000000e5", "msg_0000000000000e02", "{}")))
	got, err := s.SentFor(ctx, "msg_0000000000000e02")
	must(t, err)
	if len(got) != 1 {
		t.Errorf("kept %+v", got)
	}
}
