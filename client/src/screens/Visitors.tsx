export default function Visitors() {
  return <h1>Visitors</h1>;
}
