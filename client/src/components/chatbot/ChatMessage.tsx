import { memo } from 'react';
import { Icon } from '../icons';
import { storageUrl } from '../../lib/api';
import { confidenceLabel, confidenceLevel, shortTime } from '../../lib/format';
import type { ChatbotMessage, FeedbackValue } from '../../stores/chatbot';

const FEEDBACK: { value: FeedbackValue; label: string }[] = [
  { value: 'helpful', label: 'Helpful' },
  { value: 'partially_helpful', label: 'Partially helpful' },
  { value: 'not_helpful', label: 'Not helpful' },
];

interface Props {
  message: ChatbotMessage;
  feedback: FeedbackValue | undefined;
  onFeedback: (id: ChatbotMessage['id'], value: FeedbackValue) => void;
}

/** One chat line: the user's on the right; the bot's on the left with confidence and feedback. */
export const ChatMessage = memo(function ChatMessage({ message, feedback, onFeedback }: Props) {
  const isBot = message.sender_type === 'bot';
  const image = storageUrl(message.file_path);
  return (
    <li className={`cb-msg ${isBot ? 'bot' : 'user'}`}>
      {isBot && (
        <span className="cb-avatar" aria-hidden="true">
          <Icon.bot />
        </span>
      )}
      <div className="cb-msg-body">
        <span className="cb-sr">{isBot ? 'AI assistant said:' : 'You said:'}</span>
        {(message.content || !image) && <p className="cb-bubble">{message.content}</p>}
        {image && (
          <a href={image} target="_blank" rel="noreferrer" className="cb-image-link">
            <img src={image} alt={isBot ? 'Image from the assistant' : 'Image you sent'} className="cb-image" loading="lazy" />
          </a>
        )}
        {isBot && message.sources.length > 0 && (
          <ul className="cb-cites" aria-label="Sources">
            {message.sources.map((s) => (
              <li key={s.passage_id}>
                Source:{' '}
                {s.url && /^https?:\/\//i.test(s.url) ? (
                  <a href={s.url} target="_blank" rel="noopener">
                    {s.title}
                  </a>
                ) : (
                  s.title
                )}
              </li>
            ))}
          </ul>
        )}
        <div className="cb-meta">
          <time dateTime={message.created_at}>{shortTime(message.created_at, '')}</time>
          {isBot && (
            <>
              <span className={`cb-conf ${confidenceLevel(message.confidence_score).toLowerCase()}`}>
                Confidence: {confidenceLabel(message.confidence_score)}
              </span>
              {message.intent_detected && <span className="cb-intent">Intent: {message.intent_detected}</span>}
            </>
          )}
        </div>
        {isBot && (
          <fieldset className="cb-feedback">
            <legend className="cb-sr">Was this answer helpful?</legend>
            {FEEDBACK.map((f) => (
              <button
                key={f.value}
                type="button"
                className="cb-fb-btn"
                aria-pressed={feedback === f.value}
                onClick={() => onFeedback(message.id, f.value)}
              >
                {feedback === f.value && <span aria-hidden="true">✓ </span>}
                {f.label}
              </button>
            ))}
          </fieldset>
        )}
      </div>
    </li>
  );
});
