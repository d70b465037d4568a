export default function Integration() {
  return <h1>Integration</h1>;
}
