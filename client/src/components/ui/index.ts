export { Button, Spinner } from './Button';
export { Field, TextField, TextAreaField, SelectField, Toggle } from './Field';
export { Banner } from './Banner';
export { Dialog } from './Dialog';
