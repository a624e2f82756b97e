/** A pending question: one fieldset per question, answered or declined as a whole. */
import { html } from "htm/preact";
import type { VNode } from "preact";
import { useState } from "preact/hooks";
import { buildAnswers, controlOf, hasTextField, type Entered } from "../questions.js";
import type { PendingQuestion, Question } from "../wire.js";

export interface QuestionFormProps {
  pending: PendingQuestion;
  onAnswer(requestId: string, answers: Record<string, string | string[]>): Promise<void>;
  onDecline(requestId: string): Promise<void>;
}

export function QuestionForm({ pending, onAnswer, onDecline }: QuestionFormProps): VNode {
  const [entered, setEntered] = useState<Record<string, Entered>>({});
  const [missing, setMissing] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const update = (id: string, change: Partial<Entered>): void => setEntered((prev) => ({ ...prev, [id]: { picked: [], text: "", ...prev[id], ...change } }));
  const settle = async (work: () => Promise<void>): Promise<void> => {
    setBusy(true);
    try {
      await work();
      // Nothing typed (a secret least of all) outlives the form's answer.
      setEntered({});
    } catch {
      // The app shows the refusal; the form keeps what was entered.
    } finally {
      setBusy(false);
    }
  };
  const submit = (e: Event): void => {
    e.preventDefault();
    const built = buildAnswers(pending.questions, entered);
    setMissing(built.missing);
    if (built.missing.length === 0) void settle(() => onAnswer(pending.requestId, built.answers));
  };
  return html`<form class="card question-form" data-testid="question-form" data-request-id=${pending.requestId} aria-label="Question" onSubmit=${submit} autocomplete="off">
    <h3>Question</h3>
    ${pending.questions.map((q) => html`<${QuestionField} key=${q.id} question=${q} value=${entered[q.id]} missing=${missing.includes(q.id)} update=${update} />`)}
    <div class="buttons">
      <button type="submit" class="btn btn-allow" data-testid="question-submit" disabled=${busy}>Submit answers</button>
      <button type="button" class="btn btn-deny" data-testid="question-decline" disabled=${busy} onClick=${() => settle(() => onDecline(pending.requestId))}>Decline</button>
    </div>
  </form>`;
}

interface FieldProps {
  question: Question;
  value: Entered | undefined;
  missing: boolean;
  update(id: string, change: Partial<Entered>): void;
}

function QuestionField({ question, value, missing, update }: FieldProps): VNode {
  const control = controlOf(question);
  const picked = value?.picked ?? [];
  const name = `q-${question.id}`;
  const toggle = (label: string, on: boolean): void => {
    if (control === "single") update(question.id, { picked: on ? [label] : [] });
    else update(question.id, { picked: on ? [...picked.filter((p) => p !== label), label] : picked.filter((p) => p !== label) });
  };
  const textLabel = control === "secret" ? "Secret answer" : control === "text" ? "Answer" : "Other";
  return html`<fieldset data-testid="question" data-question-id=${question.id} aria-invalid=${missing ? "true" : undefined}>
    <legend>${question.header !== undefined ? html`<span class="badge">${question.header}</span> ` : null}${question.question}</legend>
    ${(question.options ?? []).map(
      (option) => html`<label class="option">
        <input
          type=${control === "multi" ? "checkbox" : "radio"}
          name=${name}
          value=${option.label}
          data-testid="question-option"
          checked=${picked.includes(option.label)}
          onChange=${(e: Event) => toggle(option.label, (e.currentTarget as HTMLInputElement).checked)}
        />
        ${option.label}${option.description !== undefined ? html` <span class="muted">— ${option.description}</span>` : null}
      </label>`,
    )}
    ${hasTextField(question)
      ? html`<label class="text-answer">${textLabel}
          <input
            type=${control === "secret" ? "password" : "text"}
            data-testid=${control === "secret" ? "question-secret" : "question-text"}
            autocomplete=${control === "secret" ? "new-password" : "off"}
            spellcheck=${false}
            value=${value?.text ?? ""}
            onInput=${(e: Event) => update(question.id, { text: (e.currentTarget as HTMLInputElement).value })}
          />
        </label>`
      : null}
    ${missing ? html`<p class="error-text" role="alert">This question needs an answer.</p>` : null}
  </fieldset>`;
}
