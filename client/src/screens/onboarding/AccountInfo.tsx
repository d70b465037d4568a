export default function AccountInfo() {
  return <h1>AccountInfo</h1>;
}
