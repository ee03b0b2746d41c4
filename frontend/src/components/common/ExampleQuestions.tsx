import '../chat/chat.css';
/** Suggested questions to click on an empty chat; nothing when there are none. */
export function ExampleQuestions({ questions, onPick }: { questions: readonly string[]; onPick: (q: string) => void }) {
  if (questions.length === 0) return null;
  return (
    <div className="examples">
      {questions.map((q) => (
        <button type="button" key={q} className="example" onClick={() => onPick(q)}>
          {q}
        </button>
      ))}
    </div>
  );
}
