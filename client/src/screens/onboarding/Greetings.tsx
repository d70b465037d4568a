export default function Greetings() {
  return <h1>Greetings</h1>;
}
