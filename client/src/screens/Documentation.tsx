export default function Documentation() {
  return <h1>Documentation</h1>;
}
