/** Business constants of SPEC.md section 9, shared by the console, the server and the widget. */
export const CHAT_IMAGE_MAX_BYTES = 5_242_880;
export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;
export const CHAT_IMAGE_TOO_LARGE = 'Image size should be less than 5MB';
export const AVATAR_TOO_LARGE = 'Image size should be less than 2MB';
export const NOT_AN_IMAGE = 'Only PNG, JPEG, GIF and WebP images are allowed';
/** Image types accepted anywhere; decided by the file's bytes, never its name. */
export const IMAGE_MIME_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

export const POLL_INTERVAL_MS = 10_000;
export const NEAR_BOTTOM_PX = 50;
export const SCROLL_IDLE_MS = 150;
export const PREVIEW_CHARS = 50;
export const BANNER_DISMISS_MS = 5_000;

export const DEFAULT_WIDGET_COLOR = '#667eea';
export const DEFAULT_INITIAL_GREETING = 'Hello! How can we assist you today?';
export const DEFAULT_FOLLOW_UP_GREETING = 'Feel free to ask any questions!';
export const TRIAL_DAYS = 14;
export const STARTER_MONTHLY_CHATS = 100;
/** 403 to a visitor's first message once a Starter account used its monthly chats: the widget then offers its offline form. */
export const CHAT_LIMIT_REACHED = 'This account has reached its monthly chat limit';
/** 403 to saving hide_branding=true while the plan in force is Starter. */
export const BRANDING_NEEDS_PROFESSIONAL = 'Removing the Parley branding needs the Professional plan';

export const MAX_NAME = 255;
export const MAX_EMAIL = 254;
export const MAX_PASSWORD = 1024;
export const MAX_MESSAGE = 5000;
export const MAX_GREETING = 500;
export const MAX_URL = 2048;
/** 413 to an upload that would take the account over its plan's storage quota. */
export const STORAGE_QUOTA_REACHED = "This account's storage is full: its plan's storage quota is used up. Upgrade the plan to store more files.";

/**
 * Issue 13: documents besides images, in chat (widget and console), under the images' 5 MB
 * limit. Their type is decided by the bytes (text by its content and its name's extension), never
 * by the declared type; they are served as attachments.
 */
export const CHAT_FILE_TOO_LARGE = 'File size should be less than 5MB';
export const NOT_AN_ALLOWED_FILE = 'Only images, PDF, TXT, CSV, DOCX and XLSX files are allowed';
/** Document types by extension (the extension a stored document always gets). */
export const DOCUMENT_TYPES = {
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;
/** The file inputs' `accept` for documents. */
export const DOCUMENT_ACCEPT = `.${Object.keys(DOCUMENT_TYPES).join(',.')},${Object.values(DOCUMENT_TYPES).join(',')}`;
/** Longest file name kept (characters, extension included). */
export const MAX_FILE_NAME = 120;
/** Shown as the conversation's last message when a message is only a document. */
export const FILE_PLACEHOLDER = '[file]';
/** A message's attachment is a document (a file chip), not an image (a preview); images stored before issue 13 have no type. */
export const isDocumentType = (fileType: string): boolean => fileType !== '' && !fileType.startsWith('image/');
/** "12 KB", "1.4 MB": a file's size for its chip. */
export function formatFileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
