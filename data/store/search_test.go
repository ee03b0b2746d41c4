package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// answered asks question in conv and finishes its answer with answer.
func answered(t testing.TB, s *Store, conv, question, answer string) {
	t.Helper()
	_, r := ask(t, s, conv, question, NewID("run"))
	if err := r.Finish(context.Background(), Final{Status: Complete, Content: answer}); err != nil {
		t.Fatal(err)
	}
}

func TestSearchFindsAnswersQuestionsAndTitles(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	regions := conversation(t, s)
	answered(t, s, regions, "Which region sells most?",
		"## Sales by region\n\nThe **West** region sold 55,420.45 in total,\nahead of the East (30,631.20). "+strings.Repeat("More words here. ", 20))
	cities := conversation(t, s)
	answered(t, s, cities, "Orders by city?", "ZÜRICH leads with 120 orders; Basel follows.")
	answered(t, s, cities, "And in 2024?", "Zürich again, and a 50% rise.")
	named, err := s.CreateConversation(ctx, "Westbound shipments", "/ws")
	if err != nil {
		t.Fatal(err)
	}
	quiet := conversation(t, s)
	answered(t, s, quiet, "How many customers?", "There are 87 customers.")

	for _, tc := range []struct {
		text    string
		want    []string // conversation ids, most recently updated first
		in      []string
		matches []int
	}{
		{"West", []string{named.ID, regions}, []string{"title", "answer"}, []int{0, 1}},
		{"  REGION   sold ", []string{regions}, []string{"answer"}, []int{1}},
		{"total, ahead", []string{regions}, []string{"answer"}, []int{1}}, // across a line break
		{"zürich", []string{cities}, []string{"answer"}, []int{2}},        // non-ASCII, either case
		{"orders by", []string{cities}, []string{"question"}, []int{1}},   // a question
		{"50%", []string{cities}, []string{"answer"}, []int{1}},           // % is no wildcard
		{"5_%", nil, nil, nil}, // nor _
		{"North", nil, nil, nil},
		{"", nil, nil, nil},
	} {
		hits, err := s.Search(ctx, tc.text, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ids, in []string
		var matches []int
		for _, h := range hits {
			ids, in, matches = append(ids, h.Conversation.ID), append(in, h.In), append(matches, h.Matches)
		}
		if fmt.Sprint(ids, in, matches) != fmt.Sprint(tc.want, tc.in, tc.matches) {
			t.Errorf("Search(%q) = %v %v %v, want %v %v %v", tc.text, ids, in, matches, tc.want, tc.in, tc.matches)
		}
	}

	hits, _ := s.Search(ctx, "west", 0)
	sn := hits[1].Snippet
	if sn.Match != "West" || sn.Before != "Sales by region The " || !strings.HasPrefix(sn.After, " region sold 55,420.45 in total, ahead") || !strings.HasSuffix(sn.After, "…") {
		t.Errorf("snippet %+v", sn)
	}
	if len([]rune(sn.Before+sn.Match+sn.After)) > snippetBefore+snippetAfter+20 {
		t.Errorf("snippet of %d runes", len([]rune(sn.Before+sn.Match+sn.After)))
	}
	if hits[0].Snippet != (Snippet{Match: "West", After: "bound shipments"}) {
		t.Errorf("title snippet %+v", hits[0].Snippet)
	}
	if one, _ := s.Search(ctx, "west", 1); len(one) != 1 {
		t.Errorf("limit 1: %d hits", len(one))
	}
}

func TestSnippetCutsAtWords(t *testing.T) {
	long := strings.Repeat("alpha beta gamma ", 10)
	s := long + "needle" + " " + long
	start := strings.Index(s, "needle")
	sn := snippetAt(s, start, start+len("needle"))
	if !strings.HasPrefix(sn.Before, "…") || !strings.HasSuffix(sn.After, "…") || sn.Match != "needle" {
		t.Fatalf("%+v", sn)
	}
	for _, w := range strings.Fields(strings.Trim(sn.Before+" "+sn.After, "…")) {
		if w != "alpha" && w != "beta" && w != "gamma" {
			t.Errorf("a word cut: %q in %+v", w, sn)
		}
	}
}

// TestSearchCost: 500 conversations of three questions each, answers of
// about 1 KB, are searched well within what a keystroke can wait for.
func TestSearchCost(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 500 conversations")
	}
	s := open(t)
	ctx := context.Background()
	para := strings.Repeat("The orders grew by 4.2% over the quarter, led by the East and the North. ", 14)
	for i := range 500 {
		c := conversation(t, s)
		for j := range 3 {
			a := para
			if i == 137 && j == 2 {
				a += "Only here is the West mentioned."
			}
			answered(t, s, c, fmt.Sprintf("Question %d of %d?", j, i), a)
		}
	}
	for _, text := range []string{"west", "wëst"} {
		start := time.Now()
		hits, err := s.Search(ctx, text, 50)
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("Search(%q) over 500 conversations, 1,500 answers of %d bytes: %d hits in %v", text, len(para), len(hits), took)
		if text == "west" && len(hits) != 1 {
			t.Errorf("%d hits, want 1", len(hits))
		}
		if took > 2*time.Second {
			t.Errorf("took %v", took)
		}
	}
}
