import { describe, expect, it } from 'vitest';
import { CHAT_FILE_TOO_LARGE, CHAT_IMAGE_TOO_LARGE, NOT_AN_ALLOWED_FILE, NOT_AN_IMAGE } from '../shared.js';
import { attachmentProblem, localUploadError } from './files.js';
import { TABLE } from './texts.js';
import { parseTexts } from './i18n.js';

const file = (name: string, type: string, size: number) => new File([new Uint8Array(size)], name, { type });

describe('widget attachments (issue 13)', () => {
  it('lets images and the five document types through, refuses others and anything over 5 MB with the server\'s words', () => {
    expect(attachmentProblem(file('a.png', 'image/png', 10))).toBe('');
    expect(attachmentProblem(file('Quote.PDF', '', 10))).toBe('');
    expect(attachmentProblem(file('t.csv', 'text/csv', 10))).toBe('');
    expect(attachmentProblem(file('setup.exe', 'application/x-msdownload', 10))).toBe(NOT_AN_ALLOWED_FILE);
    expect(attachmentProblem(file('page.html', 'text/html', 10))).toBe(NOT_AN_ALLOWED_FILE);
    expect(attachmentProblem(file('pic.bmp', 'image/bmp', 10))).toBe(NOT_AN_IMAGE);
    expect(attachmentProblem(file('big.png', 'image/png', 5_242_881))).toBe(CHAT_IMAGE_TOO_LARGE);
    expect(attachmentProblem(file('big.pdf', 'application/pdf', 5_242_881))).toBe(CHAT_FILE_TOO_LARGE);
  });

  it("shows upload refusals (the client's or the server's) in the visitor's language; other messages as they are", () => {
    const ru = parseTexts(TABLE.ru!);
    expect(localUploadError(NOT_AN_ALLOWED_FILE, ru)).toBe('Можно отправлять только изображения, PDF, TXT, CSV, DOCX и XLSX.');
    expect(localUploadError(NOT_AN_IMAGE, ru)).toBe(ru.fileType);
    expect(localUploadError(CHAT_IMAGE_TOO_LARGE, ru)).toBe('Файлы должны быть меньше 5 МБ.');
    expect(localUploadError(CHAT_FILE_TOO_LARGE, ru)).toBe(ru.fileSize);
    expect(localUploadError('Something else', ru)).toBe('Something else');
  });
});
