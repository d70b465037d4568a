import { describe, expect, it } from 'vitest';
import { attachmentProblem } from './files.js';
import { TABLE } from './texts.js';
import { parseTexts } from './i18n.js';

const file = (name: string, type: string, size: number) => new File([new Uint8Array(size)], name, { type });

describe('widget attachments (issue 13)', () => {
  it("lets images and the five document types through, refuses others and anything over 5 MB with the visitor's words", () => {
    const ru = parseTexts(TABLE.ru!);
    const refusal = (f: File) => {
      const problem = attachmentProblem(f);
      return problem && ru[problem];
    };
    expect(refusal(file('a.png', 'image/png', 10))).toBe('');
    expect(refusal(file('Quote.PDF', '', 10))).toBe('');
    expect(refusal(file('t.csv', 'text/csv', 10))).toBe('');
    expect(refusal(file('setup.exe', 'application/x-msdownload', 10))).toBe('Можно отправлять только изображения, PDF, TXT, CSV, DOCX и XLSX.');
    expect(refusal(file('page.html', 'text/html', 10))).toBe(ru.fileType);
    expect(refusal(file('pic.bmp', 'image/bmp', 10))).toBe(ru.fileType);
    expect(refusal(file('big.png', 'image/png', 5_242_881))).toBe('Файлы должны быть меньше 5 МБ.');
    expect(refusal(file('big.pdf', 'application/pdf', 5_242_881))).toBe(ru.fileSize);
    expect(attachmentProblem(file('max.pdf', 'application/pdf', 5_242_880))).toBe('');
  });
});
