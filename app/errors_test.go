package app_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/loupeapp/loupe/app"
)

// Error() is the JSON object the frontend parses when the error arrives
// as a string; FormatError gives Wails the same object.
func TestErrorTravelsAsJSON(t *testing.T) {
	e := &app.Error{Code: app.CodeSQL, Message: `Table "x" does not exist`, Hint: "Did you mean \"y\"?", Err: errors.New("cause")}
	var got map[string]string
	if err := json.Unmarshal([]byte(e.Error()), &got); err != nil {
		t.Fatal(err)
	}
	if got["code"] != "sql" || got["message"] != e.Message || got["hint"] != e.Hint || len(got) != 3 {
		t.Errorf("Error() = %s", e.Error())
	}
	b, _ := json.Marshal(app.FormatError(fmt.Errorf("call: %w", e)))
	if string(b) != e.Error() {
		t.Errorf("FormatError gives %s, want %s", b, e.Error())
	}
}
