export default function Conversations() {
  return <h1>Conversations</h1>;
}
