import { describe, expect, it } from 'vitest';
import { makeGeneric, peopleIn, scrubQuestion } from './privacy.js';

const carol = { names: ['Carol Jones'], values: ['carol.jones@example.com'] };

describe('makeGeneric: what learning may keep of an agent reply', () => {
  it.each([
    // Carol's reset link, with and without a greeting: nothing generic left.
    ['Hi Carol! Here is your reset link: https://shop.example/reset?token=9f8a7b6c5d4e3f2a1b0c', carol],
    ['You can reset it here: https://shop.example/account/reset/9f8a7b6c5d4e3f2a1b0c9d8e', {}],
    ['Your door code is 4821.', {}],
    ['The code for the back gate is A7X9Q, Carol.', carol],
    ['Your order #A10234 ships tomorrow.', {}],
    ['Order number 558210 left our warehouse this morning.', {}],
    ['I have sent the invoice to carol.jones@example.com.', carol],
    ['We will call you back on +44 20 7946 0958 within the hour.', {}],
    ['Your parcel goes to 12 Baker Street, London NW1 6XE.', {}],
    ['Sure Jordan, I have updated the booking for Jordan Lee.', { names: ['Jordan'] }],
    ['Carol, your account is unlocked now.', carol],
  ])('learns nothing from %j', (reply, ctx) => {
    expect(makeGeneric(reply, ctx)).toBeUndefined();
  });

  it.each([
    ['Yes, gift wrapping costs $4 per item.', {}, 'Yes, gift wrapping costs $4 per item.'],
    // Not private once the names are out (personal, though: that is what the owner's review is for).
    ['Hi Carol, your replacement will arrive Tuesday. Thanks Carol!', carol, 'Hi, your replacement will arrive Tuesday.'],
    ['We ship worldwide in 3-5 days. Returns are free within 30 days.', {}, 'We ship worldwide in 3-5 days. Returns are free within 30 days.'],
    ['Hi Carol! We open at 9am and close at 6pm, Monday to Saturday.', carol, 'We open at 9am and close at 6pm, Monday to Saturday.'],
    [
      'Hello Mallory, you can reset your password from the login page: click "Forgot password" and follow the email. The link is valid for 24 hours.',
      { names: ['Mallory'] },
      'Hello, you can reset your password from the login page: click "Forgot password" and follow the email. The link is valid for 24 hours.',
    ],
    ['Our returns page is https://shop.example/returns and it lists every step.', {}, 'Our returns page is https://shop.example/returns and it lists every step.'],
    ['A large pizza costs $1,500? No: it costs $15 and feeds four.', {}, 'A large pizza costs $1,500? No: it costs $15 and feeds four.'],
  ])('keeps %j as a generic answer', (reply, ctx, kept) => {
    expect(makeGeneric(reply, ctx)?.text).toBe(kept);
  });

  it('drops the private sentence and keeps the rest when the rest is the substance', () => {
    const out = makeGeneric(
      'Refunds go back to the card you paid with and take 5 to 7 working days to appear on your statement. I have started yours under reference RF-88213.',
    );
    expect(out?.text).toBe('Refunds go back to the card you paid with and take 5 to 7 working days to appear on your statement.');
    expect(out?.removed).toBe(1);
  });
});

describe('scrubQuestion', () => {
  it('takes the visitor data out of the question and keeps its words', () => {
    expect(scrubQuestion("Hi, I'm Carol Jones (carol.jones@example.com), I forgot my password for order 10234", {})).toBe(
      "Hi, I'm, I forgot my password for order",
    );
    expect(scrubQuestion('carol.jones@example.com 4821', {})).toBeUndefined();
  });

  it('finds the names a visitor gives', () => {
    expect(peopleIn('Hello, my name is Carol and I need help')).toContain('Carol');
  });
});
